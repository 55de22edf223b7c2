import "server-only";
import { RUN_STATUS, THREAD_SOURCE } from "@/db/enums";
import type { AuthContext } from "@/lib/auth/auth-context";
import { AppError, errorBody } from "@/lib/errors";
import { newId, randomBase62 } from "@/lib/ids";
import { log } from "@/lib/log";
import { resolveModel } from "@/lib/models";
import { shutdownError, toErrorBodyForStream } from "@/lib/http/stream-error";
import { cancelAtGraceEnd } from "@/lib/shutdown";
import type { ChatMessage, ToolDefinition } from "@/lib/providers/types";
import { freshRunState, stageCallsMicro, type RunContext } from "@/lib/runs/context";
import { persistRun } from "@/lib/runs/persist-run";
import { execute, failure, prepare } from "@/lib/runs/pipeline";
import { messageText } from "@/lib/providers/tokens";
import { PASS_THROUGH, type ChatCompletionInput } from "./schemas";
import { chunkFrames, toChatCompletion } from "./wire";
import { firstByteGate, sseWriter } from "@/lib/http/sse-writer";

/**
 * `developer` is OpenAI's name for the system role on reasoning models: LangChain's ChatOpenAI
 * sends its system prompt that way for o* and gpt-5* slugs. It is lifted like `system`, so every
 * upstream gets one system message first.
 */
const isInstruction = (m: ChatMessage) => m.role === "system" || m.role === "developer";

/** One chat-completion call as the route hands it over. */
export interface CompletionCall {
  auth: AuthContext;
  input: ChatCompletionInput;
  signal: AbortSignal;
  /** Settles when the rate limiter admitted the call (see apiRoute's overlapRateLimit). */
  admitted: Promise<void>;
  /** What the CPU worker learnt parsing a large body (readCompletionBody). */
  textTokens?: number;
  imageDigests?: Record<string, string>;
}

function buildContext(
  { auth, input, admitted, textTokens, imageDigests }: CompletionCall,
  model: RunContext["model"],
  signal: AbortSignal,
): RunContext {
  const params: Record<string, unknown> = {};
  for (const k of PASS_THROUGH) if (input[k] != null) params[k] = input[k];
  // The output cap is not passed through as given: the adapter sends the cap the credit hold
  // covers, in the field its provider honours (some read only max_tokens, OpenAI's reasoning
  // models only max_completion_tokens). With both set, the smaller one binds.
  const caps = [input.max_tokens, input.max_completion_tokens].filter((n): n is number => n != null);
  const all = input.messages as ChatMessage[];
  const runId = newId("run");
  return {
    companyId: auth.companyId,
    source: THREAD_SOURCE.completions,
    requestedModel: input.model,
    model,
    runId,
    responseId: `chatcmpl-${randomBase62(24)}`,
    threadId: newId("thread"),
    startedAt: performance.now(),
    signal,
    admitted,
    promptTextTokens: textTokens,
    imageDigests,
    stream: input.stream === true,
    profileIds: input.profile_ids,
    // SPEC rule 1: system messages become orchestrator instructions; other roles pass unchanged.
    instructions: all.filter(isInstruction).map((m) => messageText(m.content)),
    messages: all.filter((m) => !isInstruction(m)),
    inputMessages: all,
    tools: (input.tools ?? undefined) as ToolDefinition[] | undefined,
    toolChoice: input.tool_choice ?? undefined,
    params,
    maxOutputTokens: caps.length ? Math.min(...caps) : undefined,
    enableMultimodal: true,
    ...freshRunState(),
  };
}

async function startRun(call: CompletionCall, signal: AbortSignal): Promise<RunContext> {
  const { auth, input } = call;
  const model = await resolveModel({ companyId: auth.companyId, slug: input.model });
  if (input.tools?.length && !model.model.supportsTools) {
    throw new AppError("invalid_request", `The model '${input.model}' does not support tools`, {
      param: "tools",
      wireCode: "tools_not_supported",
    });
  }
  const ctx = buildContext(call, model, signal);
  try {
    await prepare(ctx);
  } catch (err) {
    if (stageCallsMicro(ctx) > 0) await storeRefused(ctx, err);
    throw err;
  }
  return ctx;
}

/**
 * A call refused after stage calls were answered (an image description, the retrieval query's
 * embedding; then 402 at the model's hold): stored as failed, so their cost is billed with it.
 */
async function storeRefused(ctx: RunContext, err: unknown): Promise<void> {
  ctx.error = failure(err);
  try {
    await persistRun(ctx, RUN_STATUS.failed);
  } catch (persistErr) {
    log.error({ err: persistErr, runId: ctx.runId }, "could not store a refused completion's stage calls");
  }
}

/** Non-streaming completion: the `chat.completion` object, after the run is stored and billed. */
export async function createCompletion(call: CompletionCall) {
  const abort = new AbortController();
  const { signal: requestSignal } = call;
  if (requestSignal.aborted) abort.abort(requestSignal.reason);
  else requestSignal.addEventListener("abort", () => abort.abort(requestSignal.reason), { once: true });
  const ctx = await startRun(call, abort.signal);
  // The server's grace ran out: stopped and billed like a client cancel, answered 503.
  const unregister = cancelAtGraceEnd(() => {
    ctx.stopReason ??= "server_shutdown";
    abort.abort(new Error("server shutting down"));
  });
  try {
    await execute(ctx);
  } finally {
    unregister();
  }
  if (ctx.stopReason === "server_shutdown") throw shutdownError();
  return toChatCompletion(ctx);
}

/**
 * Streaming completion. Resolves once the first upstream chunk is in hand, so a failure before
 * that (after retries and fallbacks) is still an ordinary 502 response. After that, chunks reach
 * the client as they arrive; a later failure ends the stream with an error frame and no [DONE].
 * Cancelling the returned stream (client gone) aborts the upstream call.
 */
export async function streamCompletion(call: CompletionCall) {
  const { input, signal: requestSignal } = call;
  // One controller for both ways out (request aborted, or body stream cancelled by the client);
  // cheaper than AbortSignal.any, which showed up in profiles.
  const abort = new AbortController();
  const signal = abort.signal;
  if (requestSignal.aborted) abort.abort(requestSignal.reason);
  else requestSignal.addEventListener("abort", () => abort.abort(requestSignal.reason), { once: true });
  const ctx = await startRun(call, signal);
  const includeUsage = input.stream_options?.include_usage === true;
  const frames = chunkFrames(ctx, includeUsage);

  const out = sseWriter(() => abort.abort(new Error("client disconnected")));
  // The server's grace ran out: stopped like a client cancel, but the client is still told.
  const unregister = cancelAtGraceEnd(() => {
    ctx.stopReason ??= "server_shutdown";
    abort.abort(new Error("server shutting down"));
  });
  const gate = firstByteGate();
  let sentFirst = false;
  let finishSent = false;
  // A company with output guardrails gets its answer checked whole before any of it is sent (see
  // RunContext.holdOutput): the model's chunks are only collected, and the checked answer goes out
  // below as one delta. Without output rules chunks pass through as they arrive.
  if (!ctx.holdOutput && !ctx.blockedBy)
    ctx.onChunk = (chunk) => {
      const first = !sentFirst;
      if (first) {
        sentFirst = true;
        out.send(frames.role());
        gate.open();
      }
      const delta = frames.delta(chunk);
      if (delta) out.send(delta);
      if (chunk.finishReason && !finishSent) {
        finishSent = true;
        out.send(frames.finish(chunk.finishReason));
      }
      // Let the first bytes reach the socket before the rest of what arrived with them is worked
      // through: the flush above runs first (both are immediates, in order), so the time to first
      // byte does not include parsing, storing and billing the rest of a fast answer.
      if (first) return new Promise<void>((resume) => setImmediate(resume));
    };

  void execute(ctx)
    .then(() => {
      if (!sentFirst) {
        sentFirst = true;
        out.send(frames.role());
        gate.open();
        // Held or blocked: the whole (checked) answer in one delta.
        const whole = frames.delta({
          content: ctx.content,
          ...(ctx.toolCalls.length ? { toolCalls: ctx.toolCalls.map((call, index) => ({ index, ...call })) } : {}),
        });
        if (whole) out.send(whole);
      }
      if (ctx.stopReason === "server_shutdown") out.send(errorBody(shutdownError()));
      else if (!finishSent && !signal.aborted) out.send(frames.finish(ctx.finishReason || "stop"));
      if (includeUsage) out.send(frames.usage());
      out.send("[DONE]");
    })
    .catch((err: unknown) => {
      if (!sentFirst) return gate.fail(err);
      log.warn({ err, runId: ctx.runId }, "stream failed after the first byte");
      out.send(toErrorBodyForStream(err));
    })
    .finally(() => {
      unregister();
      out.end();
    });

  await gate.ready;
  return out.body;
}
