import "server-only";
import { sdkInvoices, type SdkInvoice } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId } from "@/lib/ids";
import { lineTotalMinor, parseMinor } from "@/lib/sdk/money";
import type { CreateInvoiceInput } from "./schemas";

/** An `open` invoice whose line amounts and total the server computes (quantity × unit price, exact). */
export async function createInvoice(
  db: DbOrTx,
  args: { companyId: string; actor: string; input: CreateInvoiceInput },
): Promise<SdkInvoice> {
  const { input } = args;
  const lines = input.line_items.map((l, i) => ({
    ...l,
    unitPriceMinor: parseMinor(l.unit_price, `input.line_items.${i}.unit_price`),
  }));
  const { amounts, total } = lineTotalMinor(lines, "input.line_items");
  const [row] = await db
    .insert(sdkInvoices)
    .values({
      id: newId("invoice"),
      companyId: args.companyId,
      customer: input.customer,
      currency: input.currency,
      totalMinor: total,
      lineItems: lines.map((l, i) => ({
        description: l.description,
        quantity: l.quantity,
        unit_price_minor: l.unitPriceMinor,
        amount_minor: amounts[i]!,
      })),
      createdBy: args.actor,
    })
    .returning();
  return row!;
}
