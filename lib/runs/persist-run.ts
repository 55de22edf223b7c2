import "server-only";
import { db } from "@/db/client";
import { LEDGER_KIND, RUN_STATUS, THREAD_SOURCE, type RunStatus } from "@/db/enums";
import { messages, runs, threads } from "@/db/schema";
import { releaseReservation, settle } from "@/lib/billing";
import { newId } from "@/lib/ids";
import type { ChatMessage } from "@/lib/providers/types";
import type { RunContext } from "./context";

function storedMessage(ctx: RunContext, m: ChatMessage, seq: number, runId: string | null) {
  const { role, content, ...extra } = m;
  return { id: newId("message"), companyId: ctx.companyId, threadId: ctx.threadId, role, content: content ?? "", extra, runId, seq };
}

/**
 * Stores the run with its thread and messages and bills it, in one transaction: either the
 * answer, its record and its ledger row all exist, or none do. A run that produced nothing
 * billable (stopped before the model produced anything) gives its hold back instead.
 */
export async function persistRun(ctx: RunContext, status: RunStatus): Promise<void> {
  const now = new Date();
  const latencyMs = Math.round(performance.now() - ctx.startedAt);
  await db.transaction(async (tx) => {
    if (ctx.source === THREAD_SOURCE.completions) {
      await tx.insert(threads).values({ id: ctx.threadId, companyId: ctx.companyId, source: ctx.source, metadata: {} });
    }
    const rows = ctx.inputMessages.map((m, i) => storedMessage(ctx, m, i, null));
    if (ctx.content || ctx.toolCalls.length) {
      rows.push(
        storedMessage(ctx, { role: "assistant", content: ctx.content || null, ...(ctx.toolCalls.length ? { tool_calls: ctx.toolCalls } : {}) }, rows.length, ctx.runId),
      );
    }
    if (rows.length) await tx.insert(messages).values(rows);
    await tx.insert(runs).values({
      id: ctx.runId,
      companyId: ctx.companyId,
      threadId: ctx.threadId,
      model: ctx.requestedModel,
      status,
      stream: ctx.stream,
      promptTokens: ctx.usage.promptTokens,
      completionTokens: ctx.usage.completionTokens,
      cachedTokens: ctx.usage.cachedTokens,
      costMicro: ctx.costMicro,
      latencyMs,
      finishReason: ctx.finishReason || null,
      error: ctx.error ?? null,
      toolCalls: ctx.toolCalls,
      appliedRules: ctx.appliedRules,
      createdAt: new Date(Date.now() - latencyMs),
      completedAt: now,
    });
    if (!ctx.reservation) return;
    // Billed: a completed run, or whatever a failed or cancelled one generated before it stopped.
    const billable = status === RUN_STATUS.completed || ctx.usage.completionTokens > 0;
    if (!billable) {
      await releaseReservation(tx, ctx.reservation);
      ctx.costMicro = 0;
      return;
    }
    const entry = await settle(tx, {
      reservation: ctx.reservation,
      costMicro: ctx.costMicro,
      entry: {
        kind: ctx.source === THREAD_SOURCE.completions ? LEDGER_KIND.completion : LEDGER_KIND.run,
        source: ctx.source,
        model: ctx.requestedModel,
        promptTokens: ctx.usage.promptTokens,
        completionTokens: ctx.usage.completionTokens,
        referenceId: ctx.responseId,
        metadata: { run_id: ctx.runId, thread_id: ctx.threadId, cached_tokens: ctx.usage.cachedTokens, status },
      },
    });
    if (entry) ctx.costMicro = -entry.amountMicro;
  });
}
