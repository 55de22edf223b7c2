import "server-only";
import { and, eq } from "drizzle-orm";
import { guardrailRules, type GuardrailRule } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { notFound } from "@/lib/errors";
import { announceRulesChanged } from "./rule-cache";

/**
 * Deletes a rule for good (PATCH `is_active: false` keeps it); runs it fired on keep its id and
 * name.
 * @throws not_found for another company's rule or an unknown id.
 */
export async function deleteGuardrail(db: DbOrTx, args: { companyId: string; ruleId: string }): Promise<GuardrailRule> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .delete(guardrailRules)
      .where(and(eq(guardrailRules.id, args.ruleId), eq(guardrailRules.companyId, args.companyId)))
      .returning();
    if (!row) throw notFound("Guardrail rule");
    await announceRulesChanged(tx, args.companyId);
    return row;
  });
}
