import "server-only";
import { applyRules, type AppliedRule } from "./apply";
import { companyRules } from "./rule-cache";
import type { TryGuardrailsInput } from "./schemas";

export interface GuardrailTrial {
  stage: TryGuardrailsInput["stage"];
  fired: AppliedRule[];
  blocked: boolean;
  /** The sample after redaction (what the model, or the caller, would have seen). */
  text: string;
}

/** Dry run of one stage on a sample text: the same rules and evaluation as runs use, no model call. */
export async function tryGuardrails(args: { companyId: string; input: TryGuardrailsInput }): Promise<GuardrailTrial> {
  const rules = await companyRules(args.companyId);
  const outcome = await applyRules(rules[args.input.stage], [args.input.text]);
  return { stage: args.input.stage, fired: outcome.fired, blocked: outcome.blocked, text: outcome.texts[0]! };
}
