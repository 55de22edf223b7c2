import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { gatewayTracer, TRACING } from "./tracer";
import { errorMessage } from "./error-message";

/**
 * A queue's job handler that, when traced, runs each job in the root span of its own trace
 * (`job <queue>`), so the spans of what it does (a webhook's run: its steps and upstream calls)
 * hang together. Off: `handle` itself.
 */
export function inJobSpans<J extends { id: string; retryCount: number }>(
  queue: string,
  handle: (job: J) => Promise<void>,
): (job: J) => Promise<void> {
  if (!TRACING) return handle;
  return (job) => {
    const span = gatewayTracer().startSpan(
      `job ${queue}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: { "cockpit.job.queue": queue, "cockpit.job.id": job.id, "cockpit.job.retry_count": job.retryCount },
      },
      ROOT_CONTEXT,
    );
    return context.with(trace.setSpan(ROOT_CONTEXT, span), handle, undefined, job).then(
      () => span.end(),
      (err: unknown) => {
        span.setAttribute("error.type", err instanceof Error ? err.name : "unknown");
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(err) });
        span.end();
        throw err;
      },
    );
  };
}
