import type { GuardrailAction, GuardrailMatchType, GuardrailStage } from "@/db/enums";
import { compileMatcher, PatternError, type Matcher } from "./matchers.mjs";

export { compileMatcher, MAX_PATTERN_LENGTH } from "./matchers.mjs";
export interface RuleMatch {
  type: GuardrailMatchType;
  pattern: string;
}

/** Why a pattern is refused, or null when it compiles (used by the request schemas). */
export function patternProblem(match: RuleMatch): string | null {
  try {
    compileMatcher(match);
    return null;
  } catch (err) {
    if (err instanceof PatternError) return err.message;
    throw err;
  }
}

/** A rule ready to apply: what `applied_rules` shows, its pattern (for the CPU worker) and its matcher. */
export interface CompiledRule {
  id: string;
  name: string;
  stage: GuardrailStage;
  action: GuardrailAction;
  match: RuleMatch;
  matcher: Matcher;
}
