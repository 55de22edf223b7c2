import "server-only";
import { and, eq } from "drizzle-orm";
import { crmDeals } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { cursorPage } from "@/lib/pagination";
import type { DealsQuery } from "./schemas";
import { toPublicDeal } from "./to-public-deal";

/**
 * `crm/deals` data: a page of the company's deals, newest first, optionally of one stage; `next`
 * is the cursor for `after` (the last deal's id) or null on the last page.
 */
export async function listDeals(db: DbOrTx, args: { companyId: string; query: DealsQuery }) {
  const { stage, limit, after } = args.query;
  const page = await cursorPage(db, {
    table: crmDeals,
    idColumn: crmDeals.id,
    createdColumn: crmDeals.createdAt,
    where: and(eq(crmDeals.companyId, args.companyId), stage ? eq(crmDeals.stage, stage) : undefined),
    page: { limit, after, order: "desc" },
  });
  const deals = page.data.map(toPublicDeal);
  return { stage: stage ?? null, deals, next: page.hasMore ? deals.at(-1)!.id : null };
}
