import type { GuardrailAction, GuardrailMatchType, GuardrailStage } from "@/db/enums";
import type { GuardrailRule } from "@/db/schema";
import { toUnix } from "@/lib/time";

export interface PublicGuardrail {
  id: string;
  object: "guardrail";
  name: string;
  stage: GuardrailStage;
  match: { type: GuardrailMatchType; pattern: string };
  action: GuardrailAction;
  is_active: boolean;
  created_at: number;
  updated_at: number;
}

/** CONTRACT 6's rule body plus `object` and timestamps. */
export function toPublicGuardrail(rule: GuardrailRule): PublicGuardrail {
  return {
    id: rule.id,
    object: "guardrail",
    name: rule.name,
    stage: rule.stage,
    match: { type: rule.matchType, pattern: rule.pattern },
    action: rule.action,
    is_active: rule.isActive,
    created_at: toUnix(rule.createdAt),
    updated_at: toUnix(rule.updatedAt),
  };
}
