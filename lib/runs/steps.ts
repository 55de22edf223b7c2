import { traceStep } from "@/lib/observability/tracing/step-span";
import { TRACING } from "@/lib/observability/tracing/tracer";

/** CONTRACT 6 run-step types. */
export const STEP_TYPE = {
  profiles: "profiles",
  guardrail: "guardrail",
  multimodal: "multimodal",
  history: "history",
  retrieval: "retrieval",
  model_call: "model_call",
  tool_call: "tool_call",
} as const;
export type StepType = (typeof STEP_TYPE)[keyof typeof STEP_TYPE];

/** A step as the run stores it (in `runs.steps`, in order); its public id is derived from the run's. */
export interface RunStep {
  type: StepType;
  /** Milliseconds after the run started (performance clock), so a timeline needs no clock sync. */
  offset_ms: number;
  duration_ms: number;
  detail: Record<string, unknown>;
}

/** Where a run keeps its steps: the run's context, or anything with its steps and start time. */
export interface StepLog {
  steps: RunStep[];
  readonly startedAt: number;
  readonly runId?: string;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * Records a step that began at `started` (performance.now()) and ends now. Cheap: one object pushed;
 * the steps are written with the run in the statement that stores it.
 */
export function addStep(ctx: StepLog, type: StepType, started: number, detail: Record<string, unknown>): void {
  const step = {
    type,
    offset_ms: round(started - ctx.startedAt),
    duration_ms: round(performance.now() - started),
    detail,
  };
  ctx.steps.push(step);
  if (TRACING) traceStep(step, started, ctx.steps.length - 1, ctx.runId);
}

/**
 * A guardrail stage's step: every active rule of that stage and what it did (`fired` or not; after
 * a block, later rules were not evaluated).
 */
export function addGuardrailStep(
  ctx: StepLog,
  stage: string,
  started: number,
  rules: readonly { id: string; name: string; action: string }[],
  outcome: { fired: readonly { id: string }[]; blocked: boolean },
  checkedTexts: number,
): void {
  const fired = new Set(outcome.fired.map((r) => r.id));
  const blockedAt = outcome.blocked ? rules.findIndex((r) => r.id === outcome.fired.at(-1)?.id) : -1;
  addStep(ctx, STEP_TYPE.guardrail, started, {
    stage,
    texts_checked: checkedTexts,
    blocked: outcome.blocked,
    rules: rules.map((r, i) => ({
      id: r.id,
      name: r.name,
      action: r.action,
      result: fired.has(r.id) ? "fired" : blockedAt >= 0 && i > blockedAt ? "not_evaluated" : "no_match",
    })),
  });
}
