import { GUARDRAIL_ACTION } from "@/db/enums";
import type { AppliedRule } from "@/lib/runs/context";
import type { CompiledRule } from "./compile-rule";

export interface GuardrailOutcome {
  /** The texts after redaction, same order and length as given (unchanged strings are the same strings). */
  texts: string[];
  /** Each rule that fired once, in evaluation order: `{id,name,action,stage}` (CONTRACT 6 `applied_rules`). */
  fired: AppliedRule[];
  blocked: boolean;
}

/**
 * Applies one stage's rules, in creation order, to a list of texts (the parts of a prompt, or an
 * answer). `flag` only records; `redact` replaces every match with `[REDACTED]` in every text, and
 * later rules see the redacted text; the first `block` that matches stops evaluation (the answer
 * is a refusal, nothing later matters). Pure and synchronous: every matcher is linear in the text.
 */
export function applyRules(rules: readonly CompiledRule[], texts: readonly string[]): GuardrailOutcome {
  const out = [...texts];
  const fired: AppliedRule[] = [];
  for (const rule of rules) {
    let hit = false;
    for (let i = 0; i < out.length; i++) {
      const text = out[i]!;
      if (!text || !rule.matcher.test(text)) continue;
      hit = true;
      if (rule.action === GUARDRAIL_ACTION.redact) out[i] = rule.matcher.redact(text);
      else break;
    }
    if (!hit) continue;
    fired.push({ id: rule.id, name: rule.name, action: rule.action, stage: rule.stage });
    if (rule.action === GUARDRAIL_ACTION.block) return { texts: out, fired, blocked: true };
  }
  return { texts: out, fired, blocked: false };
}
