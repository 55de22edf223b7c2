import "server-only";
import { and, eq } from "drizzle-orm";
import { sql } from "@/db/sql";
import { INVOICE_STATUS } from "@/db/enums";
import { sdkInvoices, type SdkInvoice } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";

/**
 * `open` → `paid`, recording who and when.
 * @throws not_found for an unknown invoice or another company's; conflict (409) when already paid.
 */
export async function markInvoicePaid(
  db: DbOrTx,
  args: { companyId: string; actor: string; invoiceId: string },
): Promise<SdkInvoice> {
  const mine = and(eq(sdkInvoices.id, args.invoiceId), eq(sdkInvoices.companyId, args.companyId));
  // Status guard in WHERE: of two concurrent calls one updates, the other finds it paid (409).
  const [paid] = await db
    .update(sdkInvoices)
    .set({ status: INVOICE_STATUS.paid, paidAt: sql`now()`, paidBy: args.actor })
    .where(and(mine, eq(sdkInvoices.status, INVOICE_STATUS.open)))
    .returning();
  if (paid) return paid;
  const [existing] = await db.select({ status: sdkInvoices.status }).from(sdkInvoices).where(mine).limit(1);
  if (!existing)
    throw new AppError("not_found", `No invoice found with id '${args.invoiceId}'`, {
      wireCode: "invoice_not_found",
      param: "input.invoice_id",
    });
  throw new AppError("conflict", `Invoice '${args.invoiceId}' is already paid`, {
    wireCode: "invoice_already_paid",
    param: "input.invoice_id",
  });
}
