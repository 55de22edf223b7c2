import type { RunContext } from "./context";

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

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * Records a step that began at `started` (performance.now()) and ends now. Cheap: one object pushed;
 * the steps are written with the run in the statement that stores it.
 */
export function addStep(ctx: Pick<RunContext, "steps" | "startedAt">, type: StepType, started: number, detail: Record<string, unknown>): void {
  ctx.steps.push({ type, offset_ms: round(started - ctx.startedAt), duration_ms: round(performance.now() - started), detail });
}
