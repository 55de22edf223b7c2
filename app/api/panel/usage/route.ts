import { db } from "@/db/client";
import { dailySpend, getBalance, LedgerQuery, listLedger, microToOt, toPublicLedgerEntry } from "@/lib/billing";
import { panelRoute, readQuery } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";

export const GET = panelRoute(async ({ req, auth }) => {
  const query = readQuery(req, LedgerQuery);
  const [page, balance, daily] = await Promise.all([
    listLedger(db, { companyId: auth.companyId, query }),
    getBalance(db, { companyId: auth.companyId }),
    dailySpend(db, { companyId: auth.companyId, days: 30 }),
  ]);
  return Response.json({
    ...toListResponse(page, toPublicLedgerEntry, { balance_ot: microToOt(balance.balanceMicro) }),
    daily: daily.map((d) => ({ day: d.day, source: d.source, spent_ot: microToOt(d.spentMicro) })),
  });
});
