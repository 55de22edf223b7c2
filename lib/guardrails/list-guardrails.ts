import "server-only";
import { eq } from "drizzle-orm";
import { guardrailRules, type GuardrailRule } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { cursorPage, type Page, type PageQuery } from "@/lib/pagination";

export async function listGuardrails(
  db: DbOrTx,
  args: { companyId: string; page: PageQuery },
): Promise<Page<GuardrailRule>> {
  return cursorPage(db, {
    table: guardrailRules,
    idColumn: guardrailRules.id,
    createdColumn: guardrailRules.createdAt,
    where: eq(guardrailRules.companyId, args.companyId),
    page: args.page,
  });
}
