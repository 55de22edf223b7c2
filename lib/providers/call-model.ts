import "server-only";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import {
  failedOutcome,
  observeFirstToken,
  observeUpstream,
  type UpstreamOutcome,
} from "@/lib/observability/metrics/record";
import type { ProviderGroupConfig } from "./config";
import type { EmbeddingRequest, EmbeddingResult } from "./openai/embeddings";
import { adapterFor } from "./registry";
import { embedTraced } from "./traced-adapter";
import { UpstreamError, type CallOptions, type ChatChunk, type ChatRequest, type ChatResult } from "./types";

export interface ModelTarget {
  group: ProviderGroupConfig;
  /** The model's upstream id first, then its declared fallbacks. */
  upstreamIds: string[];
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/** Exponential backoff with full jitter: base·2^attempt·[0.5, 1.5). */
const backoffMs = (attempt: number) => env.UPSTREAM_RETRY_BASE_MS * 2 ** attempt * (0.5 + Math.random());

/** The longest Retry-After we wait out; a provider asking for more is treated as down for this call. */
const MAX_RETRY_AFTER_MS = 10_000;

/**
 * Failures no other upstream id can fix: the request was refused (400, 413, 422) or our key was
 * (401, 403). A 404 (model id gone) still tries the fallbacks.
 */
const REQUEST_REFUSED = new Set([400, 401, 403, 413, 422]);

function toBadGateway(err: UpstreamError, upstreamIds: string[]): AppError {
  const tried = upstreamIds.length > 1 ? ` (tried ${upstreamIds.join(", ")})` : "";
  return new AppError("upstream_error", `Upstream provider error: ${err.message}${tried}`, {
    wireCode: err.status ? `upstream_${err.status}` : "upstream_unavailable",
    cause: err,
  });
}

/**
 * Tries each upstream id in order, retrying 429, 5xx, network errors and timeouts after Retry-After
 * or a jittered backoff; a refused request ends at once. For streams `attempt` resolves at the
 * first chunk, so nothing is retried after a byte could have reached the client.
 * @throws AppError upstream_error (502) naming the provider's status and message when all fail.
 */
async function withRetries<T>(
  target: ModelTarget,
  opts: CallOptions,
  attempt: (upstreamId: string, startedMs: number) => Promise<T>,
  streamed = false,
): Promise<T> {
  const { signal } = opts;
  let last: UpstreamError | undefined;
  for (const upstreamId of target.upstreamIds) {
    for (let i = 0; i <= env.UPSTREAM_RETRIES; i++) {
      const startedMs = performance.now();
      try {
        const result = await attempt(upstreamId, startedMs);
        // A stream's attempt resolves at its first chunk; streamModel records how it ends.
        if (streamed) observeFirstToken(target.group.id, upstreamId, startedMs);
        else observeUpstream(target.group.id, upstreamId, "ok", startedMs);
        return result;
      } catch (err) {
        observeUpstream(target.group.id, upstreamId, failedOutcome(err, signal.aborted), startedMs);
        if (signal.aborted || !(err instanceof UpstreamError)) throw err;
        last = err;
        log.warn(
          { provider: target.group.id, upstreamId, attempt: i, status: err.status, retryable: err.retryable },
          "upstream call failed",
        );
        opts.onAttemptFailed?.({ upstreamId, status: err.status, message: err.message });
        if (err.status !== null && REQUEST_REFUSED.has(err.status))
          throw toBadGateway(err, target.upstreamIds.slice(0, target.upstreamIds.indexOf(upstreamId) + 1));
        if (!err.retryable) break;
        // A Retry-After is honoured (it replaces our backoff); one beyond our patience moves on.
        if (err.retryAfterMs !== null && err.retryAfterMs > MAX_RETRY_AFTER_MS) break;
        if (i < env.UPSTREAM_RETRIES) await sleep(err.retryAfterMs ?? backoffMs(i), signal);
      }
    }
  }
  throw toBadGateway(last!, target.upstreamIds);
}

export async function completeModel(
  target: ModelTarget,
  req: Omit<ChatRequest, "model">,
  opts: CallOptions,
): Promise<ChatResult> {
  const adapter = adapterFor(target.group);
  return withRetries(target, opts, (model) => adapter.complete({ ...req, model }, opts));
}

/**
 * Streams from the first upstream id that answers, in the adapter's batches. Failures after the
 * first chunk surface as AppError upstream_error from the iterator, never as a clean end.
 */
export async function* streamModel(
  target: ModelTarget,
  req: Omit<ChatRequest, "model">,
  opts: CallOptions,
): AsyncIterable<ChatChunk[]> {
  const adapter = adapterFor(target.group);
  const { iterator, first, model, startedMs } = await withRetries(
    target,
    opts,
    async (model, startedMs) => {
      const it = adapter.stream({ ...req, model }, opts)[Symbol.asyncIterator]();
      try {
        return { iterator: it, first: await it.next(), model, startedMs };
      } catch (err) {
        // Broken after its 200 but before its first chunk: the client got nothing, so retry like a
        // failed request. HTTP errors (status set) keep their own retryability.
        if (err instanceof UpstreamError && err.status === null && !err.retryable)
          throw new UpstreamError(err.provider, null, err.message, true);
        throw err;
      }
    },
    true,
  );
  // A consumer that stops reading (the client left) leaves it "cancelled".
  let outcome: UpstreamOutcome = "cancelled";
  try {
    if (!first.done) {
      yield first.value;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    }
    outcome = "ok";
  } catch (err) {
    outcome = failedOutcome(err, opts.signal.aborted);
    if (err instanceof UpstreamError) throw toBadGateway(err, target.upstreamIds);
    throw err;
  } finally {
    observeUpstream(target.group.id, model, outcome, startedMs);
  }
}

/** Embeds through the first upstream id that answers, with the chat calls' retries. @throws AppError upstream_error (502). */
export async function embedModel(
  target: ModelTarget,
  req: Omit<EmbeddingRequest, "model">,
  opts: CallOptions,
): Promise<EmbeddingResult> {
  return withRetries(target, opts, (model) => embedTraced(target.group, { ...req, model }, opts.signal));
}
