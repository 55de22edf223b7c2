import "server-only";
import { and, eq } from "drizzle-orm";
import { guardrailRules, type GuardrailRule } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { notFound } from "@/lib/errors";
import { announceRulesChanged } from "./rule-cache";
import type { UpdateGuardrailInput } from "./schemas";

/** @throws not_found for another company's rule or an unknown id. */
export async function updateGuardrail(
  db: DbOrTx,
  args: { companyId: string; ruleId: string; input: UpdateGuardrailInput },
): Promise<GuardrailRule> {
  const { input } = args;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(guardrailRules)
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.stage !== undefined ? { stage: input.stage } : {}),
        ...(input.match !== undefined ? { matchType: input.match.type, pattern: input.match.pattern } : {}),
        ...(input.action !== undefined ? { action: input.action } : {}),
        ...(input.is_active !== undefined ? { isActive: input.is_active } : {}),
        updatedAt: new Date(),
      })
      .where(and(eq(guardrailRules.id, args.ruleId), eq(guardrailRules.companyId, args.companyId)))
      .returning();
    if (!row) throw notFound("Guardrail rule");
    await announceRulesChanged(tx, args.companyId);
    return row;
  });
}
