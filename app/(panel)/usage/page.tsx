import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import { LEDGER_PAGE_SIZE, type UsagePage } from "@/components/usage/api";
import { UsageView } from "@/components/usage/usage-view";
import { dailySpend, getBalance, LedgerQuery, listLedger, microToOt, toPublicLedgerEntry } from "@/lib/billing";
import { toListResponse } from "@/lib/pagination";
import { getPanelSession } from "@/lib/panel/get-panel-session";

export const metadata: Metadata = { title: "Usage · Cockpit Gateway" };

/** Matches GET /api/panel/usage, whose window the chart draws. */
const CHART_DAYS = 30;

export default async function UsagePageRoute() {
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const { companyId } = session;
  const [page, balance, daily] = await Promise.all([
    listLedger(db, { companyId, query: LedgerQuery.parse({ limit: LEDGER_PAGE_SIZE }) }),
    getBalance(db, { companyId }),
    dailySpend(db, { companyId, days: CHART_DAYS }),
  ]);
  const initialPage: UsagePage = {
    ...toListResponse(page, toPublicLedgerEntry),
    balance_ot: microToOt(balance.balanceMicro),
    daily: daily.map((d) => ({ day: d.day, source: d.source, spent_ot: microToOt(d.spentMicro) })),
  };
  return <UsageView initialPage={initialPage} loadedAt={Date.now()} days={CHART_DAYS} />;
}
