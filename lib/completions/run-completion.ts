import "server-only";
import { RUN_STATUS, type ThreadSource } from "@/db/enums";
import type { AuthContext } from "@/lib/auth/auth-context";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { log } from "@/lib/log";
import { peekResolvedModel, resolveModel } from "@/lib/models";
import { shutdownError } from "@/lib/http/stream-error";
import { cancelAtGraceEnd } from "@/lib/shutdown";
import type { ChatChunk, ChatMessage, ToolDefinition } from "@/lib/providers/types";
import { freshRunState, stageCallsMicro, type RunContext } from "@/lib/runs/context";
import { persistRun } from "@/lib/runs/persist-run";
import { execute, failure, prepare } from "@/lib/runs/pipeline";
import { firstByteGate, SseBody, type SseFrame } from "@/lib/http/sse-writer";

/**
 * A stateless call on a throwaway thread, in the pipeline's terms: what each front door
 * (chat completions, Anthropic Messages) translates its request into.
 */
export interface CompletionRequest {
  /** The slug as requested. */
  model: string;
  source: ThreadSource;
  /** Public id of the answer (`chatcmpl-…`, `msg_…`). */
  responseId: string;
  stream: boolean;
  /** System-prompt layers from the request (after the profiles' own). */
  instructions: string[];
  /** The conversation in the pipeline's chat format, system messages lifted out. */
  messages: ChatMessage[];
  /** What the thread stores as the call's input (system messages included). */
  inputMessages: ChatMessage[];
  /** Client-side tools: offered to the model, its calls returned, never executed. */
  tools?: ToolDefinition[];
  toolChoice?: unknown;
  params: Record<string, unknown>;
  maxOutputTokens?: number;
  profileIds?: string[];
}

/** One call as the route hands it over. */
export interface CompletionCall {
  auth: AuthContext;
  request: CompletionRequest;
  signal: AbortSignal;
  /** Settles when the rate limiter admitted the call (see apiRoute's overlapRateLimit). */
  admitted: Promise<void>;
  /** What the CPU worker learnt parsing a large body (readCompletionBody). */
  textTokens?: number;
  imageDigests?: Record<string, string>;
}

function buildContext(
  { auth, request: r, admitted, textTokens, imageDigests }: CompletionCall,
  model: RunContext["model"],
  signal: AbortSignal,
): RunContext {
  return {
    companyId: auth.companyId,
    source: r.source,
    requestedModel: r.model,
    model,
    runId: newId("run"),
    responseId: r.responseId,
    threadId: newId("thread"),
    startedAt: performance.now(),
    signal,
    admitted,
    promptTextTokens: textTokens,
    imageDigests,
    stream: r.stream,
    profileIds: r.profileIds,
    instructions: r.instructions,
    messages: r.messages,
    inputMessages: r.inputMessages,
    tools: r.tools,
    toolChoice: r.toolChoice,
    params: r.params,
    maxOutputTokens: r.maxOutputTokens,
    enableMultimodal: true,
    ...freshRunState(),
  };
}

async function startRun(call: CompletionCall, signal: AbortSignal): Promise<RunContext> {
  const { auth, request } = call;
  const which = { companyId: auth.companyId, slug: request.model };
  const model = peekResolvedModel(which) ?? (await resolveModel(which));
  if (request.tools?.length && !model.model.supportsTools) {
    throw new AppError("invalid_request", `The model '${request.model}' does not support tools`, {
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

/** One abort controller for both ways out (request aborted, or body stream cancelled); cheaper than AbortSignal.any. */
function linkedAbort(requestSignal: AbortSignal): AbortController {
  const abort = new AbortController();
  if (requestSignal.aborted) abort.abort(requestSignal.reason);
  else requestSignal.addEventListener("abort", () => abort.abort(requestSignal.reason), { once: true });
  return abort;
}

/** Non-streaming: the finished run, stored and billed, for the front door to answer from. */
export async function runCompletion(call: CompletionCall): Promise<RunContext> {
  const abort = linkedAbort(call.signal);
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
  return ctx;
}

/** How a front door writes a run as Server-Sent Events. */
export interface StreamWire {
  /** Before the first chunk. */
  start(): SseFrame[];
  chunk(chunk: ChatChunk): SseFrame[];
  /** The model's finish reason arrived (once). */
  finish(reason: string): SseFrame[];
  /** The run finished and is billed; `finished` is false when the client left first. */
  end(finished: boolean): SseFrame[];
  /** The run failed after the first byte. */
  fail(err: unknown): SseFrame[];
  /** The server's grace ran out: the answer was cut short (and billed for what was generated). */
  cutShort(err: AppError): SseFrame[];
}

/**
 * Streaming. Resolves once the first upstream chunk is in hand, so a failure before that (after
 * retries and fallbacks) is still an ordinary HTTP error. After that, chunks reach the client as
 * they arrive; a later failure ends the stream with the wire's error frame. Cancelling the
 * returned stream (client gone) aborts the upstream call.
 */
export async function streamRunCompletion(
  call: CompletionCall,
  wireFor: (ctx: RunContext) => StreamWire,
): Promise<SseBody> {
  const abort = linkedAbort(call.signal);
  const signal = abort.signal;
  const ctx = await startRun(call, signal);
  const wire = wireFor(ctx);

  const out = new SseBody(() => abort.abort(new Error("client disconnected")));
  const send = (frames: SseFrame[]) => {
    for (const f of frames) out.send(f.data, f.event);
  };
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
        send(wire.start());
        gate.open();
      }
      send(wire.chunk(chunk));
      if (chunk.finishReason && !finishSent) {
        finishSent = true;
        send(wire.finish(chunk.finishReason));
        // The answer is complete: its last frames leave with the bill's (one write, not two).
        out.holdToEnd();
      }
      // Let the first bytes reach the socket before the rest of what arrived with them is worked
      // through: the response is answered (and its body attached, writing them) in the microtasks
      // before this immediate, so the time to first byte does not include parsing, storing and
      // billing the rest of a fast answer.
      if (first) return new Promise<void>((resume) => setImmediate(resume));
    };

  void execute(ctx)
    .then(() => {
      if (!sentFirst) {
        sentFirst = true;
        send(wire.start());
        gate.open();
        // Held or blocked: the whole (checked) answer in one delta.
        send(
          wire.chunk({
            content: ctx.content,
            ...(ctx.toolCalls.length ? { toolCalls: ctx.toolCalls.map((c, index) => ({ index, ...c })) } : {}),
          }),
        );
      }
      if (ctx.stopReason === "server_shutdown") return send(wire.cutShort(shutdownError()));
      if (!finishSent && !signal.aborted) send(wire.finish(ctx.finishReason || "stop"));
      send(wire.end(!signal.aborted));
    })
    .catch((err: unknown) => {
      if (!sentFirst) return gate.fail(err);
      log.warn({ err, runId: ctx.runId }, "stream failed after the first byte");
      send(wire.fail(err));
    })
    .finally(() => {
      unregister();
      out.end();
    });

  await gate.ready;
  return out;
}
