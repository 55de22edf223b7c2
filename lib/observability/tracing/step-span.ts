import { context, createContextKey, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import { gatewayTracer, TRACING } from "./tracer";
import { errorMessage } from "./error-message";

/** A step span started before its step is recorded, so the calls the step makes are its children. */
interface OpenStep {
  type: string;
  span: Span;
  ended: boolean;
}
const OPEN_STEP = createContextKey("cockpit.open-step");

/** Step detail strings that are names and ids, never content (tool arguments, results and output stay out). */
const STRING_DETAIL = new Set(["model", "provider", "finish_reason", "name", "tool_id", "call_id", "stage", "aborted"]);
/** Detail numbers and booleans that are content: what a tool was given and returned. */
const CONTENT_DETAIL = new Set(["args", "result"]);

/**
 * `run` (a run stage) with, when traced, a span for the step of `type` it records (addStep in
 * lib/runs/steps.ts ends it) active while it runs, so the calls the step makes are its children.
 * `applies` says whether this call records that step at all. Off: `run` itself.
 */
export function inStepSpans<C>(
  type: string,
  run: (ctx: C) => Promise<void>,
  applies?: (ctx: C) => boolean,
): (ctx: C) => Promise<void> {
  if (!TRACING) return run;
  return (ctx) => {
    if (applies && !applies(ctx)) return run(ctx);
    const open: OpenStep = { type, span: gatewayTracer().startSpan(`step ${type}`), ended: false };
    const active = trace.setSpan(context.active(), open.span).setValue(OPEN_STEP, open);
    return context.with(active, run, undefined, ctx).then(
      () => void (open.ended || open.span.end()),
      (err: unknown) => {
        if (!open.ended) {
          open.span.setStatus({
            code: SpanStatusCode.ERROR,
            message: errorMessage(err),
          });
          open.span.end();
        }
        throw err;
      },
    );
  };
}

/**
 * The span of a step just recorded: the open one of its type ended with the step's attributes, else
 * a span from the step's start (`started`, performance.now()) to now under the active span. Only
 * called when TRACING.
 */
export function traceStep(
  step: { type: string; detail: Record<string, unknown> },
  started: number,
  index: number,
  runId: string | undefined,
): void {
  const attributes: Attributes = { "cockpit.step.type": step.type, "cockpit.step.index": index };
  if (runId) attributes["cockpit.run.id"] = runId;
  for (const [key, value] of Object.entries(step.detail)) {
    const kept =
      typeof value === "string"
        ? STRING_DETAIL.has(key)
        : (typeof value === "number" || typeof value === "boolean") && !CONTENT_DETAIL.has(key);
    if (kept) attributes[`cockpit.step.${key}`] = value;
  }
  const open = context.active().getValue(OPEN_STEP) as OpenStep | undefined;
  if (open && !open.ended && open.type === step.type) {
    open.ended = true;
    open.span.setAttributes(attributes);
    open.span.end();
    return;
  }
  gatewayTracer()
    .startSpan(`step ${step.type}`, { attributes, startTime: performance.timeOrigin + started })
    .end();
}
