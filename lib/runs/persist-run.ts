import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { db } from "@/db/client";
import { LEDGER_KIND, RUN_STATUS, THREAD_SOURCE, type RunStatus } from "@/db/enums";
import { chargeUpTo, drawHoldCtes, endHold } from "@/lib/billing";
import type { EntryInput } from "@/lib/billing/entries";
import { insertEntrySql } from "@/lib/billing/internal";
import { newId } from "@/lib/ids";
import { commitWithGroup } from "@/lib/persistence/group-commit";
import { toStorableJson } from "@/lib/persistence/pg-text";
import type { ChatMessage } from "@/lib/providers/types";
import type { RunContext } from "./context";

function storedMessages(ctx: RunContext) {
  const all: ChatMessage[] = [...ctx.inputMessages];
  if (ctx.content || ctx.toolCalls.length) {
    all.push({ role: "assistant", content: ctx.content || null, ...(ctx.toolCalls.length ? { tool_calls: ctx.toolCalls } : {}) });
  }
  return all.map(({ role, content, ...extra }, seq) => ({
    id: newId("message"),
    role,
    content: content ?? "",
    extra,
    run_id: seq >= ctx.inputMessages.length ? ctx.runId : null,
    seq,
  }));
}

/**
 * The thread (throwaway ones only), the messages and the run, as CTEs of one statement. Named
 * `run_*` so they never clash with the billing CTEs (`r`, `c`) appended after them.
 */
function recordSql(ctx: RunContext, status: RunStatus): SQL {
  const latencyMs = Math.round(performance.now() - ctx.startedAt);
  const newThread = ctx.source === THREAD_SOURCE.completions;
  return sql`
    run_thread AS (
      INSERT INTO threads (id, company_id, source)
      SELECT ${ctx.threadId}, ${ctx.companyId}, ${ctx.source}::thread_source WHERE ${newThread}
      RETURNING id),
    run_messages AS (
      INSERT INTO messages (id, company_id, thread_id, role, content, extra, run_id, seq)
      SELECT x.id, ${ctx.companyId}, ${ctx.threadId}, x.role, x.content, x.extra, x.run_id, x.seq
      FROM jsonb_to_recordset(${toStorableJson(storedMessages(ctx))}::jsonb)
        AS x(id text, role text, content jsonb, extra jsonb, run_id text, seq int)
      RETURNING id),
    run_row AS (
      INSERT INTO runs (id, company_id, thread_id, model, status, stream, prompt_tokens, completion_tokens,
                        cached_tokens, cost_micro, latency_ms, finish_reason, error, tool_calls, applied_rules,
                        created_at, completed_at)
      VALUES (${ctx.runId}, ${ctx.companyId}, ${ctx.threadId}, ${ctx.requestedModel}, ${status}::run_status, ${ctx.stream},
              ${ctx.usage.promptTokens}, ${ctx.usage.completionTokens}, ${ctx.usage.cachedTokens}, ${ctx.costMicro},
              ${latencyMs}, ${ctx.finishReason || null}, ${ctx.error ? toStorableJson(ctx.error) : null}::jsonb,
              ${toStorableJson(ctx.toolCalls)}::jsonb, ${toStorableJson(ctx.appliedRules)}::jsonb,
              now() - make_interval(secs => ${latencyMs / 1000}), now())
      RETURNING id)`;
}

function ledgerEntry(ctx: RunContext, status: RunStatus): EntryInput {
  return {
    kind: ctx.source === THREAD_SOURCE.completions ? LEDGER_KIND.completion : LEDGER_KIND.run,
    source: ctx.source,
    model: ctx.requestedModel,
    promptTokens: ctx.usage.promptTokens,
    completionTokens: ctx.usage.completionTokens,
    referenceId: ctx.responseId,
    metadata: { run_id: ctx.runId, thread_id: ctx.threadId, cached_tokens: ctx.usage.cachedTokens, status },
  };
}

/**
 * Stores the run (thread, messages, run row) and bills it in ONE statement, committed through the
 * group committer: the answer's record and its ledger row become durable together, in a single
 * round trip. Then the request is answered.
 *
 * Billing tail of that statement: draw the actual cost from the call's credit lease (the normal
 * case: the cost is within the call's hold, so the lease has it). A run that produced nothing
 * billable is recorded alone and its hold simply goes back to the lease. When the draw finds too
 * little left (the reconciler released the lease after a presumed crash, or the run outgrew it),
 * the record is written alone and chargeUpTo() bills under row locks, never below zero.
 */
export async function persistRun(ctx: RunContext, status: RunStatus): Promise<void> {
  const hold = ctx.hold;
  const billable = status === RUN_STATUS.completed || ctx.usage.completionTokens > 0;
  if (!billable) ctx.costMicro = 0;
  const entry = ledgerEntry(ctx, status);
  const cost = ctx.costMicro;
  const lease = billable ? hold?.lease : null;
  const tail = lease ? sql`, ${drawHoldCtes(lease, cost)} ${insertEntrySql("c", -cost, entry, "id")}` : sql`SELECT 1`;
  let drawn = false;
  try {
    const rows = await commitWithGroup(sql`WITH ${recordSql(ctx, status)} ${tail}`);
    drawn = lease != null && rows.length > 0;
  } finally {
    if (hold) endHold(hold, drawn ? cost : 0);
  }
  if (billable && !drawn) {
    const row = await chargeUpTo(db, { companyId: ctx.companyId, costMicro: cost, entry });
    if (row) ctx.costMicro = -row.amountMicro;
  }
}
