import "server-only";
import type { DbOrTx } from "@/db/types";
import { microToOt } from "@/lib/billing/money";
import { getResponseRow, responseMessages } from "./internal";
import { toItems, toResponseObject } from "./output";

/**
 * `GET /v1/responses/{id}`: the stored response, its output read from the answer message it stored.
 * @throws not_found (see getResponseRow).
 */
export async function getResponse(db: DbOrTx, args: { companyId: string; responseId: string }) {
  const row = await getResponseRow(db, args);
  const answerId = row.request.answer_message_id;
  const answer = (await responseMessages(db, row)).filter((m) => m.id === answerId);
  return toResponseObject({
    id: row.id,
    createdAt: row.created_s,
    status: row.status,
    finishReason: row.finish_reason,
    model: row.model,
    error: row.error,
    usage: {
      promptTokens: row.prompt_tokens,
      completionTokens: row.completion_tokens,
      cachedTokens: row.cached_tokens,
    },
    costOt: microToOt(row.cost_micro),
    appliedRules: row.applied_rules,
    output: answer.flatMap(toItems),
    previousResponseId: row.previous_run_id,
    conversationId: row.thread_id,
    request: row.request,
  });
}
