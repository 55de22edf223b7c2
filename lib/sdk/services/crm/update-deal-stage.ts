import "server-only";
import { eq } from "drizzle-orm";
import { sql } from "@/db/sql";
import { crmDeals, crmDealStageChanges, type CrmDeal } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId } from "@/lib/ids";
import { lockDealInCompany } from "./internal";
import type { UpdateDealStageInput } from "./schemas";

/**
 * Moves a deal to `stage`, recording who and when on the deal and in history. The same stage is
 * `changed: false`, not an error, so a retried move does not fail. Needs a transaction (the row
 * lock lasts until it ends).
 * @throws not_found for another company's deal.
 */
export async function updateDealStage(
  tx: DbOrTx,
  args: { companyId: string; actor: string; input: UpdateDealStageInput },
): Promise<{ deal: CrmDeal; changed: boolean }> {
  const deal = await lockDealInCompany(tx, { companyId: args.companyId, dealId: args.input.deal_id });
  if (deal.stage === args.input.stage) return { deal, changed: false };
  // One clock for the deal and its history row: the transaction's.
  const [moved] = await tx
    .update(crmDeals)
    .set({ stage: args.input.stage, stageChangedAt: sql`now()`, stageChangedBy: args.actor, updatedAt: sql`now()` })
    .where(eq(crmDeals.id, deal.id))
    .returning();
  await tx.insert(crmDealStageChanges).values({
    id: newId("dealStageChange"),
    companyId: args.companyId,
    dealId: deal.id,
    fromStage: deal.stage,
    toStage: args.input.stage,
    changedBy: args.actor,
    changedAt: sql`now()`,
  });
  return { deal: moved!, changed: true };
}
