import { TRACING } from "@/lib/observability/tracing/tracer";
import { traceEmbeddings, UpstreamSpan } from "@/lib/observability/tracing/upstream-span";
import type { ProviderGroupConfig } from "./config";
import { embedOpenAi } from "./openai/embeddings";
import type { ChatChunk, ProviderAdapter } from "./types";

/** `adapter` with a client span per call when traced; off, `adapter` itself. */
export function tracedAdapter(group: ProviderGroupConfig, adapter: ProviderAdapter): ProviderAdapter {
  if (!TRACING) return adapter;
  return {
    async complete(req, opts) {
      const span = new UpstreamSpan(group, req);
      try {
        const result = await adapter.complete(req, opts);
        span.end(result);
        return result;
      } catch (err) {
        span.fail(err);
        throw err;
      }
    },
    stream: (req, opts) => traceStream(new UpstreamSpan(group, req), adapter.stream(req, opts), opts.signal),
  };
}

/** The stream passed through; its span ends when the stream does (finished, failed or abandoned). */
async function* traceStream(
  span: UpstreamSpan,
  stream: AsyncIterable<ChatChunk[]>,
  signal: AbortSignal,
): AsyncIterable<ChatChunk[]> {
  // A reader that stops reading does not always return the stream; the call's abort still ends it.
  const onAbort = () => span.fail(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    for await (const chunks of stream) {
      for (const chunk of chunks) span.chunk(chunk);
      yield chunks;
    }
  } catch (err) {
    span.fail(err);
    throw err;
  } finally {
    signal.removeEventListener("abort", onAbort);
    span.end();
  }
}

/** The embeddings call, with a client span per request when traced; off, embedOpenAi itself. */
export const embedTraced: typeof embedOpenAi = TRACING
  ? (group, req, signal) => traceEmbeddings(group, req, () => embedOpenAi(group, req, signal))
  : embedOpenAi;
