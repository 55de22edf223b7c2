import "server-only";
import { and, eq } from "drizzle-orm";
import { ledgerEntries, type LedgerEntry } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { cursorPage, type Page } from "@/lib/pagination";
import type { LedgerQuery } from "./schemas";

export async function listLedger(
  db: DbOrTx,
  args: { companyId: string; query: LedgerQuery },
): Promise<Page<LedgerEntry>> {
  return cursorPage(db, {
    table: ledgerEntries,
    idColumn: ledgerEntries.id,
    createdColumn: ledgerEntries.createdAt,
    where: and(
      eq(ledgerEntries.companyId, args.companyId),
      args.query.source ? eq(ledgerEntries.source, args.query.source) : undefined,
    ),
    page: args.query,
  });
}
