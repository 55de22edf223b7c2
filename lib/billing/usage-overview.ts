import "server-only";
import type { DbOrTx } from "@/db/types";
import { toListResponse } from "@/lib/pagination";
import { dailySpend } from "./daily-spend";
import { getBalance } from "./get-balance";
import { listLedger } from "./list-ledger";
import { microToOt } from "./money";
import type { LedgerQuery } from "./schemas";
import { toPublicLedgerEntry } from "./to-public";

export const USAGE_CHART_DAYS = 30;

/** What the panel's usage page shows: a ledger page, the balance and daily spend by source. */
export async function getUsageOverview(db: DbOrTx, args: { companyId: string; query: LedgerQuery }) {
  const { companyId } = args;
  const [page, balance, daily] = await Promise.all([
    listLedger(db, { companyId, query: args.query }),
    getBalance(db, { companyId }),
    dailySpend(db, { companyId, days: USAGE_CHART_DAYS }),
  ]);
  return {
    ...toListResponse(page, toPublicLedgerEntry, { balance_ot: microToOt(balance.balanceMicro) }),
    daily: daily.map((d) => ({ day: d.day, source: d.source, spent_ot: microToOt(d.spentMicro) })),
  };
}
