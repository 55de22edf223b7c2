import "server-only";
import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/db/types";
import { LEDGER_KIND, RUN_STATUS, THREAD_SOURCE, type RunStatus } from "@/db/enums";
import { drawHoldCtes, endHold, type CreditHold } from "@/lib/billing";
import { billWithHold } from "@/lib/billing/bill-with-hold";
import type { EntryInput } from "@/lib/billing/entries";
import { insertEntrySql } from "@/lib/billing/internal";
import { newId } from "@/lib/ids";
import { commitExclusive, commitWithGroup } from "@/lib/persistence/group-commit";
import { toStorableJson } from "@/lib/persistence/pg-text";
import type { ChatMessage } from "@/lib/providers/types";
import type { RunContext } from "./context";
import { storableContent } from "./storable-content";

function storedMessages(ctx: RunContext) {
  const all: ChatMessage[] = [...ctx.inputMessages];
  if (ctx.content || ctx.toolCalls.length) {
    all.push({ role: "assistant", content: ctx.content || null, ...(ctx.toolCalls.length ? { tool_calls: ctx.toolCalls } : {}) });
  }
  return all.map(({ role, content, ...extra }, seq) => ({
    id: newId("message"),
    role,
    content: storableContent(content ?? "", seq, ctx.imageDigests),
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
 * case: the cost is within the call's hold, because the cap the hold covers is the cap the
 * upstream received). A call that cost more than its hold (a provider that ignored the cap or
 * counted the prompt higher than we did), or whose lease the reconciler released, is billed by
 * billWithHold: its own hold first, then the unreserved balance, never below zero, the shortfall
 * noted; for the first case the record and the bill share one transaction.
 */
export async function persistRun(ctx: RunContext, status: RunStatus): Promise<void> {
  const hold = ctx.hold;
  // A cancelled call the provider received costs at least its prompt (the provider bills it); a
  // failed one is billed only for what it generated (providers do not bill their own errors).
  const billable =
    status === RUN_STATUS.completed || ctx.usage.completionTokens > 0 || (status === RUN_STATUS.cancelled && ctx.upstreamReached === true);
  if (!billable) ctx.costMicro = 0;
  const entry = ledgerEntry(ctx, status);
  const cost = ctx.costMicro;
  const record = recordSql(ctx, status);
  let drawn = 0;
  const billRest = (tx: Tx, lease: CreditHold["lease"], holdMicro: number) =>
    billWithHold(tx, { companyId: ctx.companyId, lease, holdMicro, costMicro: cost, entry }).then((r) => {
      drawn = r.drawnMicro;
      if (r.entry) ctx.costMicro = -r.entry.amountMicro;
    });
  try {
    if (!billable) {
      await commitWithGroup(sql`WITH ${record} SELECT 1`);
    } else if (cost === 0) {
      await commitWithGroup(sql`WITH ${record}, c AS (SELECT id, balance_micro FROM companies WHERE id = ${ctx.companyId}) ${insertEntrySql("c", 0, entry, "id")}`);
    } else if (hold?.lease && cost <= hold.amountMicro) {
      const rows = await commitWithGroup(sql`WITH ${record}, ${drawHoldCtes(hold.lease, cost)} ${insertEntrySql("c", -cost, entry, "id")}`);
      if (rows.length > 0) drawn = cost;
      // The lease was released under us (the record is stored): bill from the balance.
      else await commitExclusive((tx) => billRest(tx, null, 0));
    } else {
      await commitExclusive(async (tx) => {
        await tx.execute(sql`WITH ${record} SELECT 1`);
        await billRest(tx, hold?.lease ?? null, hold?.amountMicro ?? 0);
      });
    }
  } finally {
    if (hold) endHold(hold, drawn);
  }
}
