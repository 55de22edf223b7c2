import "server-only";
import { and, eq } from "drizzle-orm";
import { guardrailRules, type GuardrailRule } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { notFound } from "@/lib/errors";

/** @throws not_found when the rule does not exist or belongs to another company (same answer). */
export async function getGuardrailInCompany(
  db: DbOrTx,
  args: { companyId: string; ruleId: string },
): Promise<GuardrailRule> {
  const [row] = await db
    .select()
    .from(guardrailRules)
    .where(and(eq(guardrailRules.id, args.ruleId), eq(guardrailRules.companyId, args.companyId)))
    .limit(1);
  if (!row) throw notFound("Guardrail rule");
  return row;
}
