import { GUARDRAIL_STAGE } from "@/db/enums";
import { applyRules } from "@/lib/guardrails/apply";
import { CONTENT_FILTER, OUTPUT_REFUSAL } from "@/lib/guardrails/refusals";
import type { GuardrailsOutput, ModelOutput, RunOutcome, RunRequest, Stage } from "../context";

type Ctx = Pick<RunRequest, "startedAt"> & GuardrailsOutput & ModelOutput & RunOutcome;
import { addGuardrailStep } from "../steps";

/**
 * Output guardrails on the model's answer text (tool-call arguments are JSON for the caller's own
 * code and are left as they are, unless a block drops the whole answer). A block replaces the
 * answer with the refusal, so the blocked text is neither returned nor stored; the model call is
 * still billed (the provider bills it). Streaming calls reach this stage before any answer byte
 * was sent: the completion holds the stream back while the company has output rules (holdOutput).
 */
export const outputGuardrailsStage: Stage<Ctx> = {
  name: "output-guardrails",
  skips: (ctx: Ctx) => !ctx.guardrails?.output.length || !ctx.content,
  async run(ctx: Ctx) {
    const rules = ctx.guardrails!.output;
    const started = performance.now();
    const out = await applyRules(rules, [ctx.content]);
    ctx.appliedRules.push(...out.fired);
    addGuardrailStep(ctx, "output", started, rules, out, 1);
    if (out.blocked) {
      ctx.blockedBy = GUARDRAIL_STAGE.output;
      ctx.content = OUTPUT_REFUSAL;
      ctx.toolCalls = [];
      ctx.finishReason = CONTENT_FILTER;
      return;
    }
    ctx.content = out.texts[0]!;
  },
};
