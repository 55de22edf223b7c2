import { z } from "zod";
import { GUARDRAIL_ACTIONS, GUARDRAIL_MATCH_TYPES, GUARDRAIL_STAGES } from "@/db/enums";
import { storableText } from "@/lib/persistence/pg-text";
import { MAX_PATTERN_LENGTH, patternProblem } from "./compile-rule";

/** `{type, pattern}`; the pattern is compiled here, so a refused regex is a 400 naming `match.pattern`. */
const RuleMatchInput = z
  .strictObject({
    type: z.enum(GUARDRAIL_MATCH_TYPES),
    pattern: storableText(z.string().min(1).max(MAX_PATTERN_LENGTH)),
  })
  .superRefine((match, ctx) => {
    const problem = patternProblem(match);
    if (problem) ctx.addIssue({ code: "custom", path: ["pattern"], message: problem });
  });
type RuleMatchInput = z.infer<typeof RuleMatchInput>;

const Name = storableText(z.string().trim().min(1).max(100));

/** Body of POST /v1/guardrails (CONTRACT 6). */
export const CreateGuardrailInput = z.strictObject({
  name: Name,
  stage: z.enum(GUARDRAIL_STAGES),
  match: RuleMatchInput,
  action: z.enum(GUARDRAIL_ACTIONS),
  is_active: z.boolean().default(true),
});
export type CreateGuardrailInput = z.infer<typeof CreateGuardrailInput>;

/** Body of PATCH /v1/guardrails/{id}: any subset; `match` is replaced whole. */
export const UpdateGuardrailInput = z
  .strictObject({
    name: Name,
    stage: z.enum(GUARDRAIL_STAGES),
    match: RuleMatchInput,
    action: z.enum(GUARDRAIL_ACTIONS),
    is_active: z.boolean(),
  })
  .partial();
export type UpdateGuardrailInput = z.infer<typeof UpdateGuardrailInput>;

/** Body of the panel's "try it" box: a sample text run through one stage's active rules. */
export const TryGuardrailsInput = z.strictObject({
  stage: z.enum(GUARDRAIL_STAGES),
  text: storableText(z.string().max(20_000)),
});
export type TryGuardrailsInput = z.infer<typeof TryGuardrailsInput>;
