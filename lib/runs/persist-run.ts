import "server-only";
import type { SQL } from "drizzle-orm";
import { sql } from "@/db/sql";
import { GUARDRAIL_STAGE, LEDGER_KIND, RUN_STATUS, type RunStatus } from "@/db/enums";
import { billCall, endHold, type CallBillOutcome, type CreditHold, type EntryInput } from "@/lib/billing";
import { newId } from "@/lib/ids";
import { DatabaseUnavailableError, isConnectionError, isTransientConflict } from "@/db/resilience";
import { journal, registerJournalWriter } from "@/lib/persistence/bill-journal";
import { isStorableText, toStorableJson } from "@/lib/persistence/pg-text";
import type { ChatMessage } from "@/lib/providers/types";
import { stageCallsMicro, type RunContext, type StageModelCall } from "./context";
import { appendHistory, type HistoryRow } from "@/lib/threads/history-cache";
import { storableContent } from "@/lib/threads/storable-content";
import { countRepeatedTextTokens, countTextTokens } from "@/lib/providers/tokens";
import { messageTexts } from "@/lib/threads/message-tokens";
import { env } from "@/lib/env";
import { countRunBill } from "@/lib/observability/metrics/record";

/** Token count stored with the run's answer for later runs' history budgets (lib/threads/message-tokens.ts). */
function answerTokens(ctx: RunContext, m: ChatMessage): number | null {
  if (!ctx.persistent) return null;
  // An input message the history stage counted (role and texts, as below).
  const counted = ctx.inputTokens?.get(m);
  if (counted !== undefined) return counted;
  // A thread this statement makes is in no history cache: a continuation counts the answer when it reads it.
  if (ctx.newThread) return null;
  const text = typeof m.content === "string" ? m.content : "";
  const tools = m.tool_calls ? JSON.stringify(m.tool_calls) : "";
  // A response's input with content parts: counted as lib/threads/message-tokens.ts counts them.
  if (typeof m.content !== "string" && m.content !== null)
    return messageTexts(m).reduce((n, t) => n + countTextTokens(t), 0);
  // A long answer: the bill's count stands in (the tokenizer's, or the provider's own).
  if (text.length + tools.length > 16 * 1024) return ctx.usage.completionTokens + 1;
  return countRepeatedTextTokens(m.role) + countTextTokens(text) + countTextTokens(tools);
}

/**
 * The messages the run stores, `i` in order: a completion's input messages and its answer, or a
 * run's answer (its input is the thread, already stored; a response's input is stored with it and
 * names the run, which is how its chain finds it). A thread made here numbers them from 0; a run on
 * a persistent thread takes its seqs from threads.next_seq when it writes them.
 */
function storedMessages(ctx: RunContext) {
  const all: ChatMessage[] = [...ctx.inputMessages];
  // A run's server-side tool calls are in its record (`tool_calls`, steps), not in the thread; a
  // response's calls of the caller's own tools are, so the caller's results can follow them.
  const calls = ctx.persistent && !ctx.clientTools ? [] : ctx.toolCalls;
  if (ctx.content || calls.length) {
    all.push({ role: "assistant", content: ctx.content || null, ...(calls.length ? { tool_calls: calls } : {}) });
  }
  return all.map((m, i) => {
    const { role, content, ...extra } = m;
    const answer = i >= ctx.inputMessages.length;
    return {
      id: answer && ctx.answerMessageId ? ctx.answerMessageId : newId("message"),
      role,
      content: storableContent(content ?? "", i, ctx.imageDigests),
      extra,
      run_id: answer || ctx.persistent ? ctx.runId : null,
      seq: i,
      tokens: answerTokens(ctx, m),
    };
  });
}

/**
 * Everything persisting a run needs, as plain data: built once from the context, so a retry (a
 * lost acknowledgement) or a replay from the bill journal (the database was away) writes exactly
 * the same rows with the same ids.
 * @internal
 */
export interface PersistJob {
  runId: string;
  companyId: string;
  threadId: string;
  source: RunContext["source"];
  /** A response with store:false: only the bill is written. */
  ephemeral?: boolean;
  previousRunId?: string | null;
  request?: Record<string, unknown> | null;
  /** A run on a persistent thread: its row exists (in_progress) and is updated; see RunContext.persistent. */
  persistent: boolean;
  /** A persistent run whose thread this statement makes (RunContext.newThread), as a completion's. */
  newThread?: boolean;
  status: RunStatus;
  requestedModel: string;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costMicro: number;
  latencyMs: number;
  /** Epoch ms the run ended, set when the job is journaled (else the database's now()). */
  completedAt?: number;
  finishReason: string | null;
  error: RunContext["error"] | null;
  /** A completion's model tool calls (wire format), or a run's executed `{name, args, result}`. */
  toolCalls: RunContext["toolCalls"] | NonNullable<RunContext["executedTools"]>;
  appliedRules: RunContext["appliedRules"];
  citations: RunContext["citations"];
  steps: RunContext["steps"];
  messages: ReturnType<typeof storedMessages>;
  billable: boolean;
  entry: EntryInput;
  hold: { lease: { id: string; companyId: string } | null; amountMicro: number } | null;
}

/**
 * The bill's ledger id, derived from the run's: `le_` + the run id's random part.
 * @internal
 */
export const ledgerIdForRun = (runId: string) => `le_${runId.slice(runId.indexOf("_") + 1)}`;

function persistJob(ctx: RunContext, status: RunStatus): PersistJob {
  // A cancelled call the provider received costs at least its prompt (the provider bills it); a
  // failed one is billed only for what it generated (providers do not bill their own errors). A
  // run an input guardrail blocked never called a model: no bill, no ledger row. Stage calls
  // (image descriptions) were answered, so they are billed whatever the main call did.
  const stageMicro = stageCallsMicro(ctx);
  const modelBillable =
    ctx.blockedBy !== GUARDRAIL_STAGE.input &&
    (status === RUN_STATUS.completed ||
      ctx.usage.completionTokens > 0 ||
      (status === RUN_STATUS.cancelled && ctx.upstreamReached === true));
  const billable = modelBillable || stageMicro > 0;
  if (!modelBillable) ctx.costMicro = stageMicro;
  return {
    runId: ctx.runId,
    companyId: ctx.companyId,
    threadId: ctx.threadId,
    source: ctx.source,
    ephemeral: ctx.ephemeral === true,
    previousRunId: ctx.previousRunId ?? null,
    request: ctx.requestEcho ?? null,
    persistent: ctx.persistent === true,
    newThread: ctx.newThread === true,
    status,
    requestedModel: ctx.requestedModel,
    stream: ctx.stream,
    promptTokens: ctx.usage.promptTokens,
    completionTokens: ctx.usage.completionTokens,
    cachedTokens: ctx.usage.cachedTokens,
    costMicro: ctx.costMicro,
    latencyMs: (ctx.latencyMs = Math.round(performance.now() - ctx.startedAt)),
    finishReason: ctx.finishReason || null,
    error: ctx.error ?? null,
    toolCalls: ctx.persistent ? (ctx.executedTools ?? []) : ctx.toolCalls,
    appliedRules: ctx.appliedRules,
    citations: ctx.citations,
    steps: ctx.steps,
    messages: storedMessages(ctx),
    billable,
    entry: { ...ledgerEntry(ctx, status), id: ledgerIdForRun(ctx.runId) },
    hold: ctx.hold ? { lease: ctx.hold.lease, amountMicro: ctx.hold.amountMicro } : null,
  };
}

/**
 * The thread (throwaway ones only), the messages and the run, as CTEs of one statement. Named
 * `run_*` so they never clash with the billing CTEs (`r`, `c`) appended after them. Idempotent by
 * run id: when the run is already stored (`run_row` writes nothing), nothing else is written and
 * `stored` reads 0.
 *
 * A completion inserts its run and its throwaway thread, messages numbered from 0, and so does a
 * run on a thread it makes (RunContext.newThread). A run on a
 * persistent thread inserts its run row and deletes its active_runs row (lib/runs/claim-thread.ts),
 * which releases the thread, and appends its answer with seqs reserved from threads.next_seq, as
 * lib/threads/add-messages.ts does. A row the reconciler or a forced cancel stored without
 * completing it (lib/runs/end-active-runs.ts) is replaced: its executor's outcome wins.
 */
function recordSql(job: PersistJob): SQL {
  // Nothing of a store:false response is kept but its bill: "stored" means billed (by the entry's id).
  if (job.ephemeral)
    return sql`run_row AS (SELECT ${job.runId}::text AS id WHERE NOT EXISTS (SELECT 1 FROM ledger_entries WHERE id = ${job.entry.id}))`;
  const ended = job.completedAt === undefined ? sql`now()` : sql`to_timestamp(${job.completedAt / 1000}::float8)`;
  const messages = toStorableJson(job.messages);
  const n = job.messages.length;
  const insertRun = sql`INSERT INTO runs (id, company_id, thread_id, model, status, stream, prompt_tokens, completion_tokens,
                        cached_tokens, cost_micro, latency_ms, finish_reason, error, tool_calls, applied_rules,
                        citations, steps, previous_run_id, request, created_at, completed_at)
      VALUES (${job.runId}, ${job.companyId}, ${job.threadId}, ${job.requestedModel}, ${job.status}::run_status, ${job.stream},
              ${job.promptTokens}, ${job.completionTokens}, ${job.cachedTokens}, ${job.costMicro},
              ${job.latencyMs}, ${job.finishReason}, ${job.error ? toStorableJson(job.error) : null}::jsonb,
              ${toStorableJson(job.toolCalls)}::jsonb, ${toStorableJson(job.appliedRules)}::jsonb,
              ${toStorableJson(job.citations ?? [])}::jsonb, ${toStorableJson(job.steps ?? [])}::jsonb,
              ${job.previousRunId ?? null}, ${job.request ? toStorableJson(job.request) : null}::jsonb,
              ${ended} - make_interval(secs => ${job.latencyMs / 1000}), ${ended})`;
  if (job.persistent && !job.newThread) {
    return sql`
    run_row AS (
      ${insertRun}
      ON CONFLICT (id) DO UPDATE SET status = excluded.status, prompt_tokens = excluded.prompt_tokens,
        completion_tokens = excluded.completion_tokens, cached_tokens = excluded.cached_tokens, cost_micro = excluded.cost_micro,
        latency_ms = excluded.latency_ms, finish_reason = excluded.finish_reason, error = excluded.error,
        tool_calls = excluded.tool_calls, applied_rules = excluded.applied_rules, citations = excluded.citations,
        steps = excluded.steps, owner = NULL, completed_at = excluded.completed_at
      WHERE runs.completed_at IS NULL
      RETURNING id),
    run_release AS (DELETE FROM active_runs WHERE thread_id = ${job.threadId} AND run_id = ${job.runId}),
    run_seq AS (
      UPDATE threads SET next_seq = next_seq + ${n}
      WHERE id = ${job.threadId} AND ${n} > 0 AND EXISTS (SELECT 1 FROM run_row)
      RETURNING next_seq - ${n} AS base),
    run_messages AS (
      INSERT INTO messages (id, company_id, thread_id, role, content, extra, run_id, seq, tokens)
      SELECT x.id, ${job.companyId}, ${job.threadId}, x.role, x.content, x.extra, x.run_id, run_seq.base + x.seq, x.tokens
      FROM run_seq, jsonb_to_recordset(${messages}::jsonb)
        AS x(id text, role text, content jsonb, extra jsonb, run_id text, seq int, tokens int)
      RETURNING id)`;
  }
  return sql`
    run_row AS (
      ${insertRun}
      ON CONFLICT (id) DO NOTHING
      RETURNING id),
    run_thread AS (
      INSERT INTO threads (id, company_id, source, next_seq)
      SELECT ${job.threadId}, ${job.companyId}, ${job.source}::thread_source, ${n} WHERE EXISTS (SELECT 1 FROM run_row)
      RETURNING id),
    run_messages AS (
      INSERT INTO messages (id, company_id, thread_id, role, content, extra, run_id, seq, tokens)
      SELECT x.id, ${job.companyId}, ${job.threadId}, x.role, x.content, x.extra, x.run_id, x.seq, x.tokens
      FROM jsonb_to_recordset(${messages}::jsonb)
        AS x(id text, role text, content jsonb, extra jsonb, run_id text, seq int, tokens int)
      WHERE EXISTS (SELECT 1 FROM run_row)
      RETURNING id)`;
}

/**
 * Whether the statement stored the run (0: stored before), and for a run on a persistent thread
 * the seq its first message took (null when it appended none): lib/threads/history-cache.ts keeps the
 * answer, so the thread's next run reads no row for it.
 */
const storedSql = (job: PersistJob) =>
  job.persistent && !job.newThread && !job.ephemeral
    ? sql`(SELECT count(*) FROM run_row)::int AS stored, (SELECT base FROM run_seq) AS base`
    : sql`(SELECT count(*) FROM run_row)::int AS stored`;

interface StoredRow {
  stored: number;
  base?: number | null;
}

/** The outcome's `firstSeq` from a statement's row: set only when this statement stored the messages. */
const firstSeqOf = (row: StoredRow | undefined) =>
  row?.stored === 1 && typeof row.base === "number" ? { firstSeq: row.base } : {};

const toStageCallMetadata = (c: StageModelCall) => ({
  stage: c.stage,
  model: c.model,
  prompt_tokens: c.promptTokens,
  completion_tokens: c.completionTokens,
  cost_micro: c.costMicro,
});

function ledgerEntry(ctx: RunContext, status: RunStatus): EntryInput {
  return {
    kind: ctx.persistent || ctx.ephemeral ? LEDGER_KIND.run : LEDGER_KIND.completion,
    source: ctx.source,
    model: ctx.requestedModel,
    promptTokens: ctx.usage.promptTokens,
    completionTokens: ctx.usage.completionTokens,
    referenceId: ctx.responseId,
    metadata: {
      run_id: ctx.runId,
      thread_id: ctx.threadId,
      cached_tokens: ctx.usage.cachedTokens,
      status,
      ...(ctx.toolCpuMs ? { tool_cpu_ms: ctx.toolCpuMs, tool_cpu_ot_per_s: env.TOOL_CPU_OT_PER_S } : {}),
      ...(ctx.stageCalls?.length ? { stage_calls: ctx.stageCalls.map(toStageCallMetadata) } : {}),
    },
  };
}

interface PersistOutcome extends Omit<CallBillOutcome<StoredRow>, "row"> {
  /** The seq of the run's first stored message, when this write stored them (a run on a persistent thread). */
  firstSeq?: number;
}

/**
 * Stores the run (thread, messages, run row) and bills it in one statement (lib/billing's billCall
 * appends the ledger part). Idempotent by run id: a retry after a lost acknowledgement finds the
 * stored run and writes nothing, and the bill's entry id is derived from the run id, so the
 * caller may run it again after any failure.
 * @internal
 */
export async function writeRun(job: PersistJob): Promise<PersistOutcome> {
  const { row, ...outcome } = await billCall<StoredRow>(
    { companyId: job.companyId, costMicro: job.costMicro, billable: job.billable, entry: job.entry, hold: job.hold },
    { ctes: recordSql(job), writtenNow: sql`EXISTS (SELECT 1 FROM run_row)`, columns: storedSql(job) },
  );
  countRunBill(job, outcome);
  return { ...outcome, ...firstSeqOf(row) };
}

registerJournalWriter<PersistJob>("run", writeRun);

/** Hands the job to the bill journal; its hold ends when the journal wrote it. */
async function journalRun(job: PersistJob, hold: CreditHold | undefined): Promise<void> {
  job.completedAt ??= Date.now();
  try {
    await journal("run", job.runId, job, (outcome) => {
      if (hold) endHold(hold, (outcome as PersistOutcome | undefined)?.drawnMicro ?? 0);
    });
  } catch (err) {
    if (hold) endHold(hold, 0);
    throw err;
  }
}

/**
 * Persists and bills the run, then ends its hold. While the database is unreachable the job goes
 * to the bill journal instead (written when the database returns; the hold stays until then), so
 * an answer the upstream already gave is never left unbilled and the client still gets it.
 */
export async function persistRun(ctx: RunContext, status: RunStatus): Promise<void> {
  const job = persistJob(ctx, status);
  let outcome: PersistOutcome | undefined;
  for (let attempt = 1; !outcome; attempt++) {
    try {
      outcome = await writeRun(job);
    } catch (err) {
      // A lost deadlock (the run's draw against a lease release or another server's batch) is
      // run again: the write is idempotent. Still losing after three tries, or the database away:
      // the journal keeps it. Anything else is a bug: the run fails.
      if (isTransientConflict(err) && attempt < 3) continue;
      if (!isTransientConflict(err) && !isConnectionError(err) && !(err instanceof DatabaseUnavailableError)) {
        if (ctx.hold) endHold(ctx.hold, 0);
        throw err;
      }
      await journalRun(job, ctx.hold);
      return;
    }
  }
  if (outcome.chargedMicro !== undefined) ctx.costMicro = outcome.chargedMicro;
  if (ctx.hold) endHold(ctx.hold, outcome.drawnMicro);
  if (outcome.firstSeq !== undefined) cacheAnswer(job, outcome.firstSeq);
}

/**
 * A run's stored answer, as the thread's next run would read it, goes into the history cache
 * (appended only where the cache holds the thread up to the seq before it). Only plain text that
 * PostgreSQL stored as given (lib/persistence/pg-text.ts replaces what it cannot store).
 */
function cacheAnswer(job: PersistJob, firstSeq: number): void {
  const rows: HistoryRow[] = [];
  for (const m of job.messages) {
    if (typeof m.content !== "string" || !isStorableText(m.content) || Object.keys(m.extra).length > 0) return;
    rows.push({ seq: firstSeq + m.seq, role: m.role, content: m.content, extra: null, tokens: m.tokens });
  }
  appendHistory(job.companyId, job.threadId, rows);
}
