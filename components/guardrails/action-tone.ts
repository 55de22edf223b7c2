import type { BadgeTone } from "@/components/ui/badge";
import { GUARDRAIL_ACTION, type GuardrailAction } from "@/db/enums";

export const ACTION_TONE: Record<GuardrailAction, BadgeTone> = {
  [GUARDRAIL_ACTION.block]: "red",
  [GUARDRAIL_ACTION.redact]: "amber",
  [GUARDRAIL_ACTION.flag]: "indigo",
};
