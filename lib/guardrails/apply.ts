import "server-only";
import type { AppliedRule } from "@/lib/runs/context";
import { applyGuardrailsOffLoop } from "@/lib/workers/cpu-pool";
import type { CompiledRule } from "./compile-rule";
import { applyCompiledRules } from "./matchers.mjs";

export interface GuardrailOutcome {
  /** The texts after redaction, same order and length as given (unchanged strings are the same strings). */
  texts: string[];
  /** Each rule that fired once, in evaluation order: `{id,name,action,stage}` (CONTRACT 6 `applied_rules`). */
  fired: AppliedRule[];
  blocked: boolean;
}

/**
 * Characters times rules scanned on the event loop; more goes to the CPU worker. RE2's DFA in
 * JavaScript reads some 30–130 ns a character, so this keeps one call's scan near 30 ms.
 */
const INLINE_SCAN_UNITS = 256 * 1024;

/**
 * Applies one stage's rules, in creation order, to a list of texts (the parts of a prompt, or an
 * answer): see applyCompiledRules. Large texts are scanned off the event loop, so no prompt can
 * hold every other request while a company's rules read it.
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
