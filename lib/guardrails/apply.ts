import "server-only";
import { applyGuardrailsOffLoop } from "@/lib/cpu/pool";
import type { CompiledRule } from "./compile-rule";
import { applyCompiledRules } from "./matchers.mjs";

/** A rule that fired, as runs store it (CONTRACT 6 `applied_rules`). */
export interface AppliedRule {
  id: string;
  name: string;
  action: string;
  stage: string;
}

export interface GuardrailOutcome {
  /** The texts after redaction, same order and length as given (unchanged strings are the same strings). */
  texts: string[];
  /** Each rule that fired once, in evaluation order: `{id,name,action,stage}` (CONTRACT 6 `applied_rules`). */
  fired: AppliedRule[];
  blocked: boolean;
}

// Characters × rules scanned on the event loop; more goes to the CPU worker so one call cannot
// stall the loop.
const INLINE_SCAN_UNITS = 256 * 1024;

/**
 * Applies one stage's rules in creation order (see applyCompiledRules). Large texts are scanned off
 * the event loop so one company's rules cannot hold every other request.
 */
export async function applyRules(rules: readonly CompiledRule[], texts: readonly string[]): Promise<GuardrailOutcome> {
  const chars = texts.reduce((n, t) => n + t.length, 0);
  if (chars * rules.length <= INLINE_SCAN_UNITS) return applyRulesNow(rules, texts);
  const plain = rules.map(({ id, name, stage, action, match }) => ({ id, name, stage, action, match }));
  return (await applyGuardrailsOffLoop(plain, [...texts])) as GuardrailOutcome;
}

/**
 * applyRules on the calling thread, whatever the size (for small texts and tests).
 * @internal
 */
export function applyRulesNow(rules: readonly CompiledRule[], texts: readonly string[]): GuardrailOutcome {
  return applyCompiledRules(rules, texts) as GuardrailOutcome;
}
