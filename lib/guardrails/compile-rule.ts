import { RE2JS, RE2JSException } from "re2js";
import { GUARDRAIL_MATCH_TYPE, type GuardrailAction, type GuardrailMatchType, type GuardrailStage } from "@/db/enums";

/**
 * User-written patterns never run on a backtracking engine. Regexes use RE2 syntax through re2js,
 * a pure-JS port of RE2 whose matching is linear in the input (no backreferences or lookaround,
 * so `(a+)+$` cannot backtrack catastrophically); the caps below bound the program, so the cost of
 * a rule is at most a constant times the length of the text. Keywords are literals.
 */
export const MAX_PATTERN_LENGTH = 500;
/** RE2's own measure of a compiled regex's cost (instructions); `\w{1,1000}` alone is 2,001, an e-mail pattern about 10. */
export const MAX_PROGRAM_SIZE = 2_000;
export const REDACTED = "[REDACTED]";

export interface RuleMatch {
  type: GuardrailMatchType;
  pattern: string;
}

/** What one rule does to a text: whether it has a (non-empty) match, and the text with every match replaced. */
export interface Matcher {
  test(text: string): boolean;
  redact(text: string): string;
}

export class PatternError extends Error {}

const WORD_CHAR = /[\p{L}\p{N}_]/u;
const escapeLiteral = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/**
 * Keywords match case-insensitively as whole words: "secret" matches "Secret," but not "secrets"
 * or "top-secrets" (the Scunthorpe problem). The boundary is only required at an end of the
 * keyword that is itself a letter, digit or underscore, so "$$$" or "@evil.example" still match
 * inside longer text. A fixed literal with one-character lookarounds is linear on V8's engine.
 */
function keywordMatcher(keyword: string): Matcher {
  const first = keyword[0] ?? "";
  const last = keyword.at(-1) ?? "";
  const source =
    (WORD_CHAR.test(first) ? "(?<![\\p{L}\\p{N}_])" : "") + escapeLiteral(keyword) + (WORD_CHAR.test(last) ? "(?![\\p{L}\\p{N}_])" : "");
  const re = new RegExp(source, "giu");
  return {
    test: (text) => {
      re.lastIndex = 0;
      return re.test(text);
    },
    redact: (text) => text.replace(re, REDACTED),
  };
}

function regexMatcher(pattern: string): Matcher {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (err) {
    if (err instanceof RE2JSException) throw new PatternError(`invalid regex (RE2 syntax: no backreferences or lookaround): ${err.message}`);
    throw err;
  }
  if (re.programSize() > MAX_PROGRAM_SIZE) throw new PatternError("regex is too complex (reduce repetition counts or alternatives)");
  // A pattern matching the empty text would "match" between every two characters.
  if (re.testExact("")) throw new PatternError("regex must not match an empty text");
  // Zero-width matches (`\b`) are never a hit and never replaced.
  const replacer = (match: string) => (match ? REDACTED : match);
  return {
    test: (text) => {
      // The DFA answers the common case (no match) without a Matcher; a hit is confirmed non-empty.
      if (!re.test(text)) return false;
      const m = re.matcher(text);
      while (m.find()) if (m.end() > m.start()) return true;
      return false;
    },
    redact: (text) => re.matcher(text).replaceAll(replacer),
  };
}

/** @throws PatternError (with a message for the client) when the pattern is refused. */
export function compileMatcher(match: RuleMatch): Matcher {
  if (match.pattern.length === 0) throw new PatternError("pattern must not be empty");
  if (match.pattern.length > MAX_PATTERN_LENGTH) throw new PatternError(`pattern must be at most ${MAX_PATTERN_LENGTH} characters`);
  return match.type === GUARDRAIL_MATCH_TYPE.keyword ? keywordMatcher(match.pattern) : regexMatcher(match.pattern);
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

/** A rule ready to apply: what `applied_rules` shows, plus its matcher. */
export interface CompiledRule {
  id: string;
  name: string;
  stage: GuardrailStage;
  action: GuardrailAction;
  matcher: Matcher;
}
