import "server-only";
import { and, desc, eq } from "drizzle-orm";
import { sql } from "@/db/sql";
import { DEAL_STAGE, DEAL_STAGES, type DealStage } from "@/db/enums";
import { crmDeals, type CrmDeal } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { formatMinor } from "@/lib/sdk/money";
import { STAGE_TITLES, type PipelineQuery } from "./schemas";
import { toPublicDeal } from "./to-public-deal";

/** Cards per column: the newest; `count` and `total` still cover every deal of the stage. */
const PIPELINE_CARDS_PER_STAGE = 25;
const OPEN_STAGES: DealStage[] = [DEAL_STAGE.lead, DEAL_STAGE.qualified, DEAL_STAGE.proposal];

/** A board card: what the board shows and moves (the deals view and actions carry the whole deal). */
function toCard(d: CrmDeal) {
  const { id, title, contact, amount, currency, stage, stage_changed_at } = toPublicDeal(d);
  return { id, title, contact, amount, currency, stage, stage_changed_at };
}
type PipelineCard = ReturnType<typeof toCard>;

/**
 * `crm/pipeline` data: one column per stage (always all five, in order) with its count, its total
 * in `currency` and its newest cards; stats over the open, won and lost stages. Two queries.
 */
export async function loadPipeline(db: DbOrTx, args: { companyId: string; query: PipelineQuery }) {
  const { companyId } = args;
  const { currency } = args.query;
  const [sums, cards] = await Promise.all([
    db
      .select({
        stage: crmDeals.stage,
        count: sql<number>`count(*)::int`,
        // Text: a sum of bigints is numeric and may pass 2^53.
        total: sql<string>`coalesce(sum(${crmDeals.amountMinor}) filter (where ${crmDeals.currency} = ${currency}), 0)::text`,
      })
      .from(crmDeals)
      .where(eq(crmDeals.companyId, companyId))
      .groupBy(crmDeals.stage),
    newestPerStage(db, companyId),
  ]);
  const byStage = new Map(sums.map((s) => [s.stage, s]));
  const deals = new Map<DealStage, PipelineCard[]>(DEAL_STAGES.map((s) => [s, []]));
  for (const d of cards) deals.get(d.stage)!.push(toCard(d));
  const total = (stages: DealStage[]) => stages.reduce((acc, s) => acc + BigInt(byStage.get(s)?.total ?? "0"), 0n);
  const count = (stages: DealStage[]) => stages.reduce((acc, s) => acc + (byStage.get(s)?.count ?? 0), 0);
  return {
    currency,
    stats: {
      open_count: count(OPEN_STAGES),
      open_value: formatMinor(total(OPEN_STAGES)),
      won_count: count([DEAL_STAGE.won]),
      won_value: formatMinor(total([DEAL_STAGE.won])),
      lost_value: formatMinor(total([DEAL_STAGE.lost])),
    },
    stages: DEAL_STAGES.map((s) => {
      const t = formatMinor(total([s]));
      return {
        id: s,
        title: STAGE_TITLES[s],
        count: count([s]),
        total: t,
        total_text: `${t} ${currency}`,
        deals: deals.get(s)!,
      };
    }),
  };
}

/** Every stage as an array literal (constants from db/enums, never input). */
const STAGE_ARRAY = sql.raw(`array[${DEAL_STAGES.map((s) => `'${s}'`).join(", ")}]::deal_stage[]`);

/**
 * The newest PIPELINE_CARDS_PER_STAGE deals per stage: a lateral join doing one index range scan
 * per stage that stops at the limit, so the cost does not grow with the number of deals.
 */
async function newestPerStage(db: DbOrTx, companyId: string): Promise<CrmDeal[]> {
  const newest = db
    .select()
    .from(crmDeals)
    .where(and(eq(crmDeals.companyId, companyId), sql`${crmDeals.stage} = stages.stage`))
    .orderBy(desc(crmDeals.createdAt), desc(crmDeals.id))
    .limit(PIPELINE_CARDS_PER_STAGE)
    .as("newest");
  return db
    .select(newest._.selectedFields)
    .from(sql`unnest(${STAGE_ARRAY}) as stages(stage)`)
    .crossJoinLateral(newest)
    .orderBy(desc(newest.createdAt), desc(newest.id));
}
