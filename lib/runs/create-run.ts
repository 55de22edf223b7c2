import "server-only";
import { sql } from "@/db/sql";
import { db } from "@/db/client";
import { RUN_STATUS, THREAD_SOURCE, type RunStatus } from "@/db/enums";
import type { Run } from "@/db/schema";
import type { AuthContext } from "@/lib/auth/auth-context";
import { AppError } from "@/lib/errors";
import { firstByteGate, SseBody } from "@/lib/http/sse-writer";
import { log } from "@/lib/log";
import { peekResolvedModel, resolveModel } from "@/lib/models";
import { shutdownError, toErrorBodyForStream } from "@/lib/http/stream-error";
import { cancelAtGraceEnd } from "@/lib/shutdown";
import { trackRun } from "./active-runs";
import { endActiveRuns } from "./end-active-runs";
import { freshRunState, type ExecutedToolCall, type RunContext } from "./context";
import { execute, failure, prepare } from "./pipeline";
import { persistRun } from "./persist-run";
import type { RunInput } from "./schemas";
import { toPublicRun } from "./to-public";
import { newId } from "@/lib/ids";

/** One run request as the route hands it over. */
export interface RunCall {
  auth: AuthContext;
  threadId: string;
  input: RunInput;
  signal: AbortSignal;
  /** Settles when the rate limiter admitted the call (apiRoute's overlapRateLimit). */
  admitted: Promise<void>;
  /** Chosen beforehand by a webhook event, which commits it with its claim, so a re-delivered job resumes that run. */
  runId?: string;
  /** A front door's translation of its request (lib/protocols/): the context fields it sets beyond RunInput's. */
  protocol?: ProtocolFields;
  /** The model the front door already resolved for `input.model` (its checks came first). */
  model?: RunContext["model"];
}

/** What a front door (Responses API) sets on a run beyond RunInput: its thread mode, input and tools. */
export type ProtocolFields = Partial<
  Pick<
    RunContext,
    | "source"
    | "persistent"
    | "previousRunId"
    | "ephemeral"
    | "newThread"
    | "clientTools"
    | "answerMessageId"
    | "requestEcho"
    | "imageDigests"
    | "instructions"
    | "messages"
    | "inputMessages"
    | "tools"
    | "toolChoice"
  >
>;

function buildContext(call: RunCall, model: RunContext["model"], signal: AbortSignal): RunContext {
  const { auth, input } = call;
  const runId = call.runId ?? newId("run");
  const params: Record<string, unknown> = {};
  if (input.temperature != null) params.temperature = input.temperature;
  if (input.top_p != null) params.top_p = input.top_p;
  return {
    companyId: auth.companyId,
    source: THREAD_SOURCE.api,
    persistent: true,
    requestedModel: input.model,
    model,
    runId,
    responseId: runId,
    threadId: call.threadId,
    startedAt: performance.now(),
    signal,
    admitted: call.admitted,
    stream: input.stream === true,
    profileIds: input.profile_ids ?? undefined,
    useKb: input.use_kb ?? undefined,
    useTools: input.use_tools ?? undefined,
    runToolChoice: input.tool_choice ?? undefined,
    mentionedFileIds: input.mentioned_file_ids?.length ? [...new Set(input.mentioned_file_ids)] : undefined,
    // The run's `instructions` is the last system-prompt layer, after the profiles' (profiles stage).
    instructions: input.instructions && input.instructions.trim() !== "" ? [input.instructions] : [],
    messages: [],
    inputMessages: [],
    params,
    maxOutputTokens: input.max_completion_tokens ?? undefined,
    enableMultimodal: input.enable_multimodal ?? true,
    ...call.protocol,
    ...freshRunState(),
  };
}

/** Errors of a stored run name it (CONTRACT 6: 502 with `run_id`), so the client can read its record. */
function withRunId(err: unknown, ctx: RunContext): unknown {
  if (ctx.claimed && err instanceof AppError) Object.assign(err.extra, { run_id: ctx.runId });
  return err;
}

/**
 * Last resort when a run could not be stored (a bug; outages go to the bill journal): mark it
 * failed so its thread is never left locked. `completed_at` stays unset, so a late write of the
 * real outcome wins.
 */
async function releaseThread(ctx: RunContext, err: unknown): Promise<void> {
  try {
    await endActiveRuns(
      db,
      sql`thread_id = ${ctx.threadId} AND run_id = ${ctx.runId}`,
      RUN_STATUS.failed,
      failure(err),
    );
  } catch (releaseErr) {
    log.error({ err: releaseErr, runId: ctx.runId }, "could not release the thread of a failed run");
  }
}

/** Stores a run that failed before its model call (402, a message too long, a refused image), releasing its thread. */
async function storeEarlyFailure(ctx: RunContext, err: unknown): Promise<void> {
  ctx.error = failure(err);
  try {
    await persistRun(ctx, RUN_STATUS.failed);
  } catch (persistErr) {
    await releaseThread(ctx, persistErr);
  }
}

/**
 * Resolves the model, checks references, then runs the pre-model stages. Tracked from the start so
 * a cancel here or elsewhere can stop it; `done` settles when it is stored.
 */
async function startRun(call: RunCall, abort: AbortController, done: Promise<unknown>): Promise<RunContext> {
  const which = { companyId: call.auth.companyId, slug: call.input.model };
  const model = call.model ?? peekResolvedModel(which) ?? (await resolveModel(which));
  const ctx = buildContext(call, model, abort.signal);
  // Only a run that claims its thread (an active_runs row) can be cancelled by POST …/cancel: a
  // response on a thread its final statement makes, or one with store:false, is not tracked.
  if (!ctx.newThread && !ctx.ephemeral)
    trackRun(
      ctx.runId,
      () => {
        ctx.stopReason ??= "cancelled";
        abort.abort(new Error("run cancelled"));
      },
      done,
    );
  try {
    await prepare(ctx);
  } catch (err) {
    if (ctx.claimed) await storeEarlyFailure(ctx, err);
    throw withRunId(err, ctx);
  }
  return ctx;
}

/** The model call onwards; a failure is stored and rethrown with the run's id. */
async function finish(ctx: RunContext): Promise<RunStatus> {
  try {
    return await execute(ctx);
  } catch (err) {
    // execute stored the failed run (then this finds nothing active); when storing itself failed,
    // the thread is released here.
    await releaseThread(ctx, err);
    throw withRunId(err, ctx);
  }
}

/** The run as the API shows it, from what the pipeline did (no read back). */
function runFromContext(ctx: RunContext, status: RunStatus): Run {
  const latency = ctx.latencyMs ?? Math.round(performance.now() - ctx.startedAt);
  const now = Date.now();
  return {
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
    latencyMs: latency,
    finishReason: ctx.finishReason || null,
    error: ctx.error ?? null,
    toolCalls: ctx.executedTools ?? [],
    appliedRules: ctx.appliedRules,
    citations: ctx.citations,
    steps: ctx.steps,
    previousRunId: ctx.previousRunId ?? null,
    request: ctx.requestEcho ?? null,
    owner: null,
    cancelRequestedAt: null,
    createdAt: new Date(now - latency),
    completedAt: new Date(now),
  };
}

function deferred(): { promise: Promise<void>; settle: () => void } {
  let settle!: () => void;
  const promise = new Promise<void>((resolve) => (settle = resolve));
  return { promise, settle };
}

/** CONTRACT 6's error frame of a run stream, then the terminator. */
function sendError(out: SseBody, err: unknown): void {
  const { error } = toErrorBodyForStream(err);
  out.send({ error: { message: error.message, type: error.type } });
  out.send("[DONE]");
}

/** Links the request's signal to the run's controller (a client that leaves stops the run). */
function runController(ctxRef: { ctx?: RunContext }, requestSignal: AbortSignal): AbortController {
  const abort = new AbortController();
  const onAbort = () => {
    if (ctxRef.ctx) ctxRef.ctx.stopReason ??= "client_disconnected";
    abort.abort(requestSignal.reason);
  };
  if (requestSignal.aborted) onAbort();
  else requestSignal.addEventListener("abort", onAbort, { once: true });
  return abort;
}

/** Non-streaming run (SPEC run response + CONTRACT 6), answered with its final status once stored and billed. */
export async function createRun(call: RunCall) {
  const { ctx, status } = await executeRun(call);
  return toPublicRun(runFromContext(ctx, status), ctx.content);
}

/** A non-streaming run to its end (stored and billed): the context and its final status, for a front door to translate. */
export async function executeRun(call: RunCall): Promise<{ ctx: RunContext; status: RunStatus }> {
  const stored = deferred();
  const ref: { ctx?: RunContext } = {};
  const abort = runController(ref, call.signal);
  let unregister = () => {};
  try {
    const ctx = (ref.ctx = await startRun(call, abort, stored.promise));
    // The server's grace ran out: stopped and billed like a client cancel; the run answers `cancelled`.
    unregister = cancelAtGraceEnd(() => {
      ctx.stopReason ??= "server_shutdown";
      abort.abort(new Error("server shutting down"));
    });
    const status = await finish(ctx);
    return { ctx, status };
  } finally {
    unregister();
    stored.settle();
  }
}

/**
 * How a streaming run writes its events: CONTRACT 6's run frames by default, or a front door's
 * (lib/protocols/). `start` is called once before the first delta; `end` once the run is stored.
 */
export interface RunStreamFormat {
  start?(ctx: RunContext, out: SseBody): void;
  delta(ctx: RunContext, text: string, out: SseBody): void;
  toolCall?(ctx: RunContext, executed: ExecutedToolCall, out: SseBody): void;
  end(ctx: RunContext, status: RunStatus, out: SseBody): void;
  /** A failure after the first byte (or the server's grace running out). */
  error(ctx: RunContext, err: unknown, out: SseBody): void;
}

/** SPEC's frames plus CONTRACT's `{tool_call}` and `{error}` before `[DONE]`. */
const RUN_FRAMES: RunStreamFormat = {
  delta: (ctx, text, out) => out.send({ delta: text, model: ctx.requestedModel }),
  // Each executed tool call as CONTRACT 6's `{"tool_call":{name,args,result}}` frame, as it completes.
  toolCall: (_ctx, executed, out) => out.send({ tool_call: executed }),
  end(ctx, _status, out) {
    const { promptTokens, completionTokens } = ctx.usage;
    out.send({
      done: true,
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
      latency_ms: ctx.latencyMs,
    });
    out.send("[DONE]");
  },
  error: (_ctx, err, out) => sendError(out, err),
};

/**
 * Streaming run in `format` (the run frames by default). Resolves once the first upstream chunk is
 * in hand, so an earlier failure is an ordinary 502 with `run_id`. With output guardrails the
 * checked answer comes as one final delta.
 */
export async function streamRun(
  call: RunCall,
  format: RunStreamFormat = RUN_FRAMES,
): Promise<{ body: SseBody; runId: string }> {
  const stored = deferred();
  const ref: { ctx?: RunContext } = {};
  const abort = runController(ref, call.signal);
  let ctx: RunContext;
  try {
    ctx = ref.ctx = await startRun(call, abort, stored.promise);
  } catch (err) {
    stored.settle();
    throw err;
  }
  const out = new SseBody(() => {
    ctx.stopReason ??= "client_disconnected";
    abort.abort(new Error("client disconnected"));
  });
  // The server's grace ran out: stopped like a client cancel, but the client is still told.
  const unregister = cancelAtGraceEnd(() => {
    ctx.stopReason ??= "server_shutdown";
    abort.abort(new Error("server shutting down"));
  });
  const gate = firstByteGate();
  let sentFirst = false;
  const first = () => {
    sentFirst = true;
    format.start?.(ctx, out);
    gate.open();
  };
  if (!ctx.holdOutput && !ctx.blockedBy) {
    ctx.onChunk = (chunk) => {
      const isFirst = !sentFirst;
      if (isFirst) first();
      if (chunk.content) format.delta(ctx, chunk.content, out);
      // The answer is complete (unless tools continue it): its last frames leave with the end's.
      if (chunk.finishReason && !ctx.serverTools) out.holdToEnd();
      // The first bytes reach the socket (the response is answered in the microtasks before this
      // immediate) before the rest of a fast answer is worked through.
      if (isFirst) return new Promise<void>((resume) => setImmediate(resume));
    };
  }
  if (format.toolCall) ctx.onToolCall = (executed) => format.toolCall!(ctx, executed, out);
  void finish(ctx)
    .then((status) => {
      if (!sentFirst) {
        first();
        if (ctx.content) format.delta(ctx, ctx.content, out);
      }
      if (ctx.stopReason === "server_shutdown") return format.error(ctx, shutdownError(), out);
      format.end(ctx, status, out);
    })
    .catch((err: unknown) => {
      if (!sentFirst) return gate.fail(err);
      log.warn({ err, runId: ctx.runId }, "run stream failed after the first byte");
      format.error(ctx, err, out);
    })
    .finally(() => {
      unregister();
      stored.settle();
      out.end();
    });
  await gate.ready;
  return { body: out, runId: ctx.runId };
}
