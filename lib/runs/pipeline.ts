import "server-only";
import { RUN_STATUS, type RunStatus } from "@/db/enums";
import { endHold } from "@/lib/billing/lease";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { RunContext, Stage } from "./context";
import { persistRun } from "./persist-run";
import { callModelStage } from "./stages/call-model";
import { historyStage } from "./stages/history";
import { retrievalStage } from "./stages/retrieval";
import { toolLoopStage } from "./stages/tool-loop";
import { toolsStage } from "./stages/tools";
import { inputGuardrailsStage } from "./stages/input-guardrails";
import { multimodalStage } from "./stages/multimodal";
import { outputGuardrailsStage } from "./stages/output-guardrails";
import { profilesStage } from "./stages/profiles";
import { reserveCreditStage } from "./stages/reserve-credit";

/**
 * The orchestrator pipeline shared by chat completions and runs, in order:
 *   profiles → tools (runs) → history (runs) → input guardrails → multimodal → retrieval → reserve credit → model →
 *   tool loop → output guardrails → persist + bill.
 * There is no second path.
 */
const BEFORE_MODEL: Stage[] = [
  profilesStage,
  toolsStage,
  historyStage,
  inputGuardrailsStage,
  multimodalStage,
  retrievalStage,
  reserveCreditStage,
];
const MODEL: Stage = callModelStage;
const AFTER_MODEL: Stage[] = [toolLoopStage, outputGuardrailsStage];

/**
 * Runs the stages before the model, then waits for the rate limiter's verdict (its statement ran
 * meanwhile). Errors here are plain HTTP errors: nothing was sent yet, and a credit hold taken
 * is given back. A run blocked by an input guardrail skips the rest: no credit is held and the
 * model is never called.
 */
export async function prepare(ctx: RunContext): Promise<void> {
  try {
    for (const stage of BEFORE_MODEL) {
      if (stage.skips?.(ctx)) continue;
      await stage.run(ctx);
      if (ctx.blockedBy) break;
    }
    await ctx.admitted;
  } catch (err) {
    if (ctx.hold) endHold(ctx.hold, 0);
    ctx.hold = undefined;
    throw err;
  }
}

export function failure(err: unknown): { code: string; message: string } {
  if (err instanceof AppError) return { code: err.wireCode, message: err.message };
  return { code: "internal_error", message: "The run failed" };
}

/**
 * Model, later stages, then persistence and billing. Whatever happens, the run is stored and its
 * hold settled or released: a failure is recorded as `failed`, a client that went away as
 * `cancelled` (billed for what was generated). Rethrows the failure after recording it.
 */
export async function execute(ctx: RunContext): Promise<RunStatus> {
  let status: RunStatus = RUN_STATUS.completed;
  let error: unknown;
  try {
    if (!ctx.blockedBy) {
      await MODEL.run(ctx);
      for (const stage of AFTER_MODEL) if (!stage.skips?.(ctx)) await stage.run(ctx);
    }
  } catch (err) {
    error = err;
    status = ctx.signal.aborted ? RUN_STATUS.cancelled : RUN_STATUS.failed;
    // A run cancelled by POST …/cancel carries no error; a client that left is said so.
    if (!ctx.signal.aborted) ctx.error = failure(err);
    else if (ctx.stopReason === "server_shutdown")
      ctx.error = { code: "server_shutdown", message: "The server shut down before the run finished" };
    else if (ctx.stopReason !== "cancelled")
      ctx.error = { code: "client_disconnected", message: "The client closed the connection" };
  }
  try {
    await persistRun(ctx, status);
  } catch (persistErr) {
    log.error({ err: persistErr, runId: ctx.runId }, "could not persist run");
    throw persistErr;
  }
  if (error && status === RUN_STATUS.failed) throw error;
  return status;
}
