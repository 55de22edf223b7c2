import { db } from "@/db/client";
import { getUsageOverview, LedgerQuery } from "@/lib/billing";
import { panelRoute, readQuery } from "@/lib/http";

export const GET = panelRoute(async ({ req, auth }) =>
  Response.json(await getUsageOverview(db, { companyId: auth.companyId, query: readQuery(req, LedgerQuery) })),
);
