import { costMicro } from "@/lib/models";
import { completeModel, streamModel } from "@/lib/providers/call-model";
import { countPromptTokens, countTextTokens } from "@/lib/providers/tokens";
import type { ChatChunk, ToolCall } from "@/lib/providers/types";
import { microToOt } from "@/lib/billing/money";
import { inStepSpans } from "@/lib/observability/tracing/step-span";
import {
  stageCallsMicro,
  type GuardrailsOutput,
  type ModelOutput,
  type MultimodalOutput,
  type RetrievalOutput,
  type RunBill,
  type RunOutcome,
  type RunPrompt,
  type RunRequest,
  type RunSinks,
  type Stage,
  type ToolsOutput,
} from "../context";
import { modelRequest } from "../model-request";
import { addStep, STEP_TYPE } from "../steps";

/** What the model stage reads and writes. */
export type ModelStageContext = RunRequest &
  RunPrompt &
  ToolsOutput &
  GuardrailsOutput &
  MultimodalOutput &
  RetrievalOutput &
  ModelOutput &
  RunBill &
  RunOutcome &
  RunSinks;
type Ctx = ModelStageContext;

/** Folds streamed tool-call fragments into whole calls. */
function mergeToolCalls(calls: ToolCall[], chunk: ChatChunk): void {
  for (const d of chunk.toolCalls ?? []) {
    const call = (calls[d.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
    if (d.id) call.id = d.id;
    if (d.function?.name) call.function.name += d.function.name;
    if (d.function?.arguments) call.function.arguments += d.function.arguments;
  }
}

/** Adds a streamed chunk to the answer so far. */
function takeChunk(ctx: Ctx, calls: ToolCall[], chunk: ChatChunk): void {
  if (chunk.content) ctx.content += chunk.content;
  if (chunk.toolCalls) mergeToolCalls(calls, chunk);
  ctx.toolCalls = calls.filter(Boolean);
  if (chunk.finishReason) ctx.finishReason = chunk.finishReason;
  if (chunk.usage) {
    ctx.usage = chunk.usage;
    ctx.usageReported = true;
  }
}

/** Usage from the provider when it gave one, else counted with the tokenizer (also for partial answers). */
function finalizeUsage(ctx: Ctx, prompt: ReturnType<typeof modelRequest>): void {
  if (!ctx.usageReported) {
    ctx.usage = {
      promptTokens: ctx.promptTokens ?? countPromptTokens(prompt.messages, prompt.tools),
      completionTokens:
        countTextTokens(ctx.content) + (ctx.toolCalls.length ? countTextTokens(JSON.stringify(ctx.toolCalls)) : 0),
      cachedTokens: 0,
    };
  }
  ctx.costMicro = costMicro(ctx.usage, ctx.model.prices) + stageCallsMicro(ctx);
}

/**
 * When the client leaves after the answer's last chunk (finish_reason) but before the provider's
 * usage chunk, the upstream stream is read this much longer for it: the provider bills what it
 * reports, so that is what the call costs. A client that leaves mid-answer stops the upstream at
 * once (every further token would be billed too) and the tokenizer counts what was generated.
 */
const USAGE_GRACE_MS = 2_000;

const NOTHING_TO_UNDO = () => {};

/** The upstream call's signal: the client's, except for the usage grace above (streams only). */
function upstreamSignal(ctx: Ctx): { signal: AbortSignal; done: () => void } {
  if (!ctx.stream) return { signal: ctx.signal, done: NOTHING_TO_UNDO };
  const upstream = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => {
    if (ctx.stream && ctx.finishReason && !ctx.usageReported)
      timer = setTimeout(() => upstream.abort(ctx.signal.reason), USAGE_GRACE_MS);
    else upstream.abort(ctx.signal.reason);
  };
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });
  return {
    signal: upstream.signal,
    done: () => {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Calls the model. Streaming forwards each upstream chunk to `ctx.onChunk` as it arrives; when the
 * client goes away (signal aborted) the upstream request is aborted with it and what was generated
 * so far is kept for billing.
 */
export const callModelStage: Stage<Ctx> = {
  name: "model",
  async run(ctx) {
    const req = modelRequest(ctx);
    const target = { group: ctx.model.group, upstreamIds: ctx.model.upstreamIds };
    const { signal, done } = upstreamSignal(ctx);
    const started = performance.now();
    let firstChunkMs: number | undefined;
    const failed: { upstream_id: string; status: number | null; error: string }[] = [];
    const opts = {
      signal,
      onDispatch: (sent: boolean) => void (ctx.upstreamReached = sent),
      onAttemptFailed: (a: { upstreamId: string; status: number | null; message: string }) =>
        void failed.push({ upstream_id: a.upstreamId, status: a.status, error: a.message.slice(0, 300) }),
    };
    try {
      if (!ctx.stream) {
        const result = await completeModel(target, req, opts);
        ctx.content = result.content ?? "";
        ctx.toolCalls = result.toolCalls;
        ctx.finishReason = result.finishReason;
        if (result.usage) {
          ctx.usage = result.usage;
          ctx.usageReported = true;
        }
        return;
      }
      const calls: ToolCall[] = [];
      for await (const chunks of streamModel(target, req, opts)) {
        firstChunkMs ??= performance.now() - started;
        for (const chunk of chunks) {
          takeChunk(ctx, calls, chunk);
          const wait = ctx.onChunk?.(chunk);
          if (wait) await wait;
        }
      }
    } finally {
      done();
      finalizeUsage(ctx, req);
      addStep(ctx, STEP_TYPE.model_call, started, {
        model: ctx.requestedModel,
        provider: ctx.model.group.id,
        prompt_tokens: ctx.usage.promptTokens,
        completion_tokens: ctx.usage.completionTokens,
        cached_tokens: ctx.usage.cachedTokens,
        usage_reported: ctx.usageReported,
        cost_ot: microToOt(ctx.costMicro - stageCallsMicro(ctx)),
        finish_reason: ctx.finishReason || null,
        ...(ctx.tools?.length
          ? { tools_offered: ctx.tools.map((t) => t.function.name), tool_choice: ctx.toolChoice ?? "auto" }
          : {}),
        ...(ctx.toolsMissing?.length ? { tools_not_active: ctx.toolsMissing } : {}),
        ...(ctx.toolsSkipped ? { tools_skipped: ctx.toolsSkipped } : {}),
        retries: failed.length,
        failed_attempts: failed,
        ...(firstChunkMs !== undefined ? { first_chunk_ms: Math.round(firstChunkMs * 100) / 100 } : {}),
        ...(ctx.signal.aborted ? { aborted: ctx.stopReason ?? "client_disconnected" } : {}),
      });
    }
  },
};
// Traced, the upstream calls' spans are children of their model_call step's.
callModelStage.run = inStepSpans(STEP_TYPE.model_call, callModelStage.run);
