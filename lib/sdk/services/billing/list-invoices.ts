import "server-only";
import { and, eq } from "drizzle-orm";
import { sql } from "@/db/sql";
import { INVOICE_STATUS } from "@/db/enums";
import { sdkInvoices } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { cursorPage } from "@/lib/pagination";
import { formatMinor } from "@/lib/sdk/money";
import type { InvoicesQuery } from "./schemas";
import { toPublicInvoice } from "./to-public-invoice";

/**
 * `billing/invoices` data: a page of the company's invoices (newest first, optionally of one
 * status, `next` = cursor or null) and, over all its invoices in `currency`, count and total by status.
 */
export async function listInvoices(db: DbOrTx, args: { companyId: string; query: InvoicesQuery }) {
  const { status, currency, limit, after } = args.query;
  const company = eq(sdkInvoices.companyId, args.companyId);
  const [page, sums] = await Promise.all([
    cursorPage(db, {
      table: sdkInvoices,
      idColumn: sdkInvoices.id,
      createdColumn: sdkInvoices.createdAt,
      where: and(company, status ? eq(sdkInvoices.status, status) : undefined),
      page: { limit, after, order: "desc" },
    }),
    db
      .select({
        status: sdkInvoices.status,
        count: sql<number>`count(*)::int`,
        total: sql<string>`coalesce(sum(${sdkInvoices.totalMinor}), 0)::text`,
      })
      .from(sdkInvoices)
      .where(and(company, eq(sdkInvoices.currency, currency)))
      .groupBy(sdkInvoices.status),
  ]);
  const by = (s: string) => sums.find((r) => r.status === s);
  const invoices = page.data.map(toPublicInvoice);
  return {
    status: status ?? null,
    currency,
    stats: {
      open_count: by(INVOICE_STATUS.open)?.count ?? 0,
      open_total: formatMinor(BigInt(by(INVOICE_STATUS.open)?.total ?? "0")),
      paid_count: by(INVOICE_STATUS.paid)?.count ?? 0,
      paid_total: formatMinor(BigInt(by(INVOICE_STATUS.paid)?.total ?? "0")),
    },
    invoices,
    next: page.hasMore ? invoices.at(-1)!.id : null,
  };
}
