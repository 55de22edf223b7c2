import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import { LEDGER_PAGE_SIZE } from "@/components/usage/api";
import { UsageView } from "@/components/usage/usage-view";
import { getUsageOverview, LedgerQuery, USAGE_CHART_DAYS } from "@/lib/billing";
import { getPanelSession } from "@/lib/panel/get-panel-session";

export const metadata: Metadata = { title: "Usage · Cockpit Gateway" };

export default async function UsagePageRoute() {
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const initialPage = await getUsageOverview(db, {
    companyId: session.companyId,
    query: LedgerQuery.parse({ limit: LEDGER_PAGE_SIZE }),
  });
  return <UsageView initialPage={initialPage} loadedAt={Date.now()} days={USAGE_CHART_DAYS} />;
}
