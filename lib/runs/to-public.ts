import type { Run } from "@/db/schema";
import { microToOt } from "@/lib/billing/money";
import { toUnix } from "@/lib/time";
import type { RunStep } from "./steps";

/** A stored tool call: SPEC's `{name, args, result}`, or a model's wire call (completions) shown in that shape. */
function toPublicToolCall(c: unknown) {
  const call = c as { name?: string; args?: unknown; result?: unknown; function?: { name: string; arguments: string } };
  if (call.function) {
    let args: unknown = call.function.arguments;
    try {
      args = JSON.parse(call.function.arguments);
    } catch {
      // a model's malformed arguments are shown as the text it sent
    }
    return { name: call.function.name, args, result: null };
  }
  return { name: call.name, args: call.args, result: call.result ?? null };
}

/** The run's answer text: the assistant message it added (a string, or the text of its parts). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p: { type?: string; text?: string }) => (p.type === "text" && typeof p.text === "string" ? p.text : ""))
    .join("");
}

/** SPEC run response + CONTRACT 6, plus timestamps and `cost_ot`; `content` is the assistant message the run added. */
export function toPublicRun(run: Run, content: unknown) {
  return {
    id: run.id,
    object: "thread.run" as const,
    thread_id: run.threadId,
    model: run.model,
    status: run.status,
    content: contentText(content),
    usage: {
      prompt_tokens: run.promptTokens,
      completion_tokens: run.completionTokens,
      total_tokens: run.promptTokens + run.completionTokens,
      cached_tokens: run.cachedTokens,
    },
    tool_calls: run.toolCalls.map(toPublicToolCall),
    applied_rules: run.appliedRules,
    citations: run.citations,
    latency_ms: run.latencyMs ?? 0,
    cost_ot: microToOt(run.costMicro),
    error: run.error ?? null,
    created_at: toUnix(run.createdAt),
    completed_at: run.completedAt ? toUnix(run.completedAt) : null,
  };
}
export type PublicRun = ReturnType<typeof toPublicRun>;

/** Step ids are derived: `step_` + the run id's random part + `_` + the step's index. */
const stepId = (runId: string, index: number) => `step_${runId.slice(runId.indexOf("_") + 1)}_${index}`;

export function stepIndex(runId: string, id: string): number | null {
  const prefix = stepId(runId, 0).slice(0, -1);
  if (!id.startsWith(prefix)) return null;
  const n = Number(id.slice(prefix.length));
  return Number.isInteger(n) && n >= 0 ? n : null;
}

/** CONTRACT 6 run step: `{id, object:"run.step", type, started_at, duration_ms, detail}`, plus `offset_ms` into the run. */
export function toPublicStep(run: Pick<Run, "id" | "createdAt">, step: RunStep, index: number) {
  return {
    id: stepId(run.id, index),
    object: "run.step" as const,
    type: step.type,
    started_at: Math.floor((run.createdAt.getTime() + step.offset_ms) / 1000),
    offset_ms: step.offset_ms,
    duration_ms: step.duration_ms,
    detail: step.detail,
  };
}
