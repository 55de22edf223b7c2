import "server-only";
import { guardrailRules, type GuardrailRule } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId } from "@/lib/ids";
import { announceRulesChanged } from "./rule-cache";
import type { CreateGuardrailInput } from "./schemas";

/** Stores a rule whose pattern the schema already compiled; every process sees it on its next call. */
export async function createGuardrail(
  db: DbOrTx,
  args: { companyId: string; input: CreateGuardrailInput },
): Promise<GuardrailRule> {
  const { input } = args;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(guardrailRules)
      .values({
        id: newId("guardrail"),
        companyId: args.companyId,
        name: input.name,
        stage: input.stage,
        matchType: input.match.type,
        pattern: input.match.pattern,
        action: input.action,
        isActive: input.is_active,
      })
      .returning();
    await announceRulesChanged(tx, args.companyId);
    return row!;
  });
}
