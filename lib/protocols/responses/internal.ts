import "server-only";
import { sql } from "@/db/sql";
import type { ThreadSource } from "@/db/enums";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import type { ItemSource } from "./output";

const responseNotFound = (id: string) =>
  new AppError("not_found", `Response with id '${id}' not found.`, { wireCode: "response_not_found" });

export interface ResponseRow {
  id: string;
  thread_id: string;
  model: string;
  status: string;
  finish_reason: string | null;
  error: { code: string; message: string } | null;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cost_micro: number;
  applied_rules: unknown[];
  previous_run_id: string | null;
  request: Record<string, unknown>;
  created_s: number;
  source: ThreadSource;
}

export interface StoredItemMessage extends ItemSource {
  seq: number;
  created_s: number;
}

/**
 * A stored response of the company (a run made by the Responses API: it has `request`).
 * @throws not_found for an unknown id, another company's, a plain run's or a store:false response's.
 */
export async function getResponseRow(
  db: DbOrTx,
  args: { companyId: string; responseId: string },
): Promise<ResponseRow> {
  const [row] = (await db.execute(sql`
    SELECT r.id, r.thread_id, r.model, r.status, r.finish_reason, r.error, r.prompt_tokens, r.completion_tokens,
           r.cached_tokens, r.cost_micro::float8 AS cost_micro, r.applied_rules, r.previous_run_id, r.request,
           extract(epoch FROM r.created_at)::bigint::int AS created_s, t.source
    FROM runs r JOIN threads t ON t.id = r.thread_id
    WHERE r.id = ${args.responseId} AND r.company_id = ${args.companyId} AND r.request IS NOT NULL`)) as unknown as ResponseRow[];
  if (!row) throw responseNotFound(args.responseId);
  return row;
}

/** The messages a response stored (its input, then its answer), in thread order. */
export async function responseMessages(db: DbOrTx, row: ResponseRow): Promise<StoredItemMessage[]> {
  return (await db.execute(sql`
    SELECT id, role, content, extra, seq, extract(epoch FROM created_at)::bigint::int AS created_s FROM messages
    WHERE thread_id = ${row.thread_id} AND run_id = ${row.id}
    ORDER BY seq`)) as unknown as StoredItemMessage[];
}
