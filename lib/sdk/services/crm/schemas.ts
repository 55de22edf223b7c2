import { z } from "zod";
import { DEAL_STAGE, DEAL_STAGES, type DealStage } from "@/db/enums";
import { PageQuery } from "@/lib/pagination";
import { CURRENCY_PATTERN, DEFAULT_CURRENCY, MONEY_PATTERN } from "@/lib/sdk/money";
import type { JsonSchemaObject } from "@/lib/sdk/types";

export const STAGE_TITLES: Record<DealStage, string> = {
  lead: "Lead",
  qualified: "Qualified",
  proposal: "Proposal",
  won: "Won",
  lost: "Lost",
};

/** A `""` filter value means no filter (widget/VOCABULARY.md `filter`). */
const emptyAsUnset = (v: unknown) => (v === "" ? undefined : v);
const Currency = z.preprocess(
  emptyAsUnset,
  z.string().regex(new RegExp(CURRENCY_PATTERN), "must be an ISO 4217 code such as USD").default(DEFAULT_CURRENCY),
);

/** `crm/pipeline`: totals are of deals in `currency` (default USD); counts are of every deal. */
export const PipelineQuery = z.object({ currency: Currency });
export type PipelineQuery = z.infer<typeof PipelineQuery>;

/** `crm/deals`: newest first, `limit` 1..100 (20), `after` a deal id, optional `stage`. */
export const DealsQuery = z.object({
  stage: z.preprocess(emptyAsUnset, z.enum(DEAL_STAGES).optional()),
  limit: PageQuery.shape.limit,
  after: z.preprocess(emptyAsUnset, PageQuery.shape.after),
});
export type DealsQuery = z.infer<typeof DealsQuery>;

const money = {
  type: "string",
  pattern: MONEY_PATTERN,
  description: 'a decimal amount with at most two decimals, e.g. "1234.50"',
};
const currency = {
  type: "string",
  title: "Currency",
  pattern: CURRENCY_PATTERN,
  default: DEFAULT_CURRENCY,
  description: "an ISO 4217 code such as USD",
};
const stage = { type: "string", title: "Stage", enum: DEAL_STAGES };

export const CreateDealSchema: JsonSchemaObject = {
  type: "object",
  additionalProperties: false,
  required: ["title", "amount"],
  properties: {
    title: { type: "string", title: "Title", minLength: 1, maxLength: 200 },
    contact: { type: "string", title: "Contact", maxLength: 200, default: "" },
    amount: { ...money, title: "Amount" },
    currency,
    stage: { ...stage, default: DEAL_STAGE.lead },
  },
};
export interface CreateDealInput {
  title: string;
  contact: string;
  amount: string;
  currency: string;
  stage: DealStage;
}

export const UpdateDealStageSchema: JsonSchemaObject = {
  type: "object",
  additionalProperties: false,
  required: ["deal_id", "stage"],
  properties: {
    deal_id: { type: "string", title: "Deal", minLength: 1, maxLength: 200 },
    stage,
  },
};
export interface UpdateDealStageInput {
  deal_id: string;
  stage: DealStage;
}
