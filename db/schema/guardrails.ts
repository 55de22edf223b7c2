import { boolean, index, pgEnum, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { GUARDRAIL_ACTIONS, GUARDRAIL_MATCH_TYPES, GUARDRAIL_STAGES } from "../enums";
import { createdAt } from "./columns";
import { companies } from "./companies";

export const guardrailStageEnum = pgEnum("guardrail_stage", GUARDRAIL_STAGES);
export const guardrailMatchTypeEnum = pgEnum("guardrail_match_type", GUARDRAIL_MATCH_TYPES);
export const guardrailActionEnum = pgEnum("guardrail_action", GUARDRAIL_ACTIONS);

/** A company's guardrail rules (CONTRACT 6). Patterns are validated before they are stored (lib/guardrails/compile-rule.ts). */
export const guardrailRules = pgTable(
  "guardrail_rules",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
    stage: guardrailStageEnum("stage").notNull(),
    matchType: guardrailMatchTypeEnum("match_type").notNull(),
    pattern: text("pattern").notNull(),
    action: guardrailActionEnum("action").notNull(),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("guardrail_rules_company_created_idx").on(t.companyId, t.createdAt, t.id)],
);

export type GuardrailRule = typeof guardrailRules.$inferSelect;
