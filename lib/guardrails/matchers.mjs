// @ts-check
/**
 * Guardrail matching in plain JS, shared by the server and the CPU worker. Patterns never run on a
 * backtracking engine: regexes use RE2 via re2js (linear), keywords are literals; rules match the
 * text and its folded form.
 */
import { RE2JS, RE2JSException } from "re2js";
import { foldText, originalSpan } from "./fold-text.mjs";

export const MAX_PATTERN_LENGTH = 500;
/**
 * RE2's cost of a compiled regex (instructions): `\w{1,1000}` alone exceeds it, an e-mail pattern is far below.
 * @internal
 */
const MAX_PROGRAM_SIZE = 2_000;
/** @internal */
export const REDACTED = "[REDACTED]";

export class PatternError extends Error {}

/** @typedef {"keyword" | "regex"} MatchType */
/** @typedef {{ type: MatchType; pattern: string }} RuleMatch */
/** @typedef {{ text: string; folded: import("./fold-text.mjs").FoldedText | null }} ScanText */
/** @typedef {{ test(scan: ScanText): boolean; redact(scan: ScanText): string }} Matcher */
/** @typedef {{ hits(text: string): boolean; spans(text: string): Iterable<[number, number]> }} Engine */
/** @typedef {{ id: string; name: string; stage: "input" | "output"; action: "block" | "redact" | "flag"; matcher: Matcher }} CompiledRule */
/** @typedef {{ id: string; name: string; action: string; stage: string }} FiredRule */
/** @typedef {{ texts: string[]; fired: FiredRule[]; blocked: boolean }} RulesOutcome */

/**
 * @param {string} text @returns {ScanText}
 * @internal
 */
export const scanText = (text) => ({ text, folded: foldText(text) });

/** @type {Engine} */
const NEVER = { hits: () => false, spans: () => [] };

/**
 * `text` with each span replaced by REDACTED; overlapping spans (a match in both forms) merge.
 * @param {string} text @param {[number, number][]} spans
 */
function replaceSpans(text, spans) {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [s, e] of spans) {
    if (s < at) at = Math.max(at, e);
    else {
      out += text.slice(at, s) + REDACTED;
      at = e;
    }
  }
  return out + text.slice(at);
}

/** @param {Engine} original @param {Engine} folded @returns {Matcher} */
function matcherOf(original, folded) {
  return {
    test: (scan) => original.hits(scan.text) || (scan.folded !== null && folded.hits(scan.folded.text)),
    redact: (scan) => {
      const spans = [...original.spans(scan.text)];
      const f = scan.folded;
      if (f) for (const [s, e] of folded.spans(f.text)) spans.push(originalSpan(f, s, e));
      return replaceSpans(scan.text, spans);
    },
  };
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;
/**
 * Only syntax characters and `/`: with the `u` flag any other escaped character (`\-`) is a
 * syntax error, and the literal never sits inside a class where `-` would mean a range.
 * @param {string} s
 */
const escapeLiteral = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * Keywords match case-insensitively as whole words ("secret" not in "secrets"). The boundary
 * applies only at an end that is a word character, so "$$$" still matches; literal plus
 * one-character lookarounds stays linear.
 * @param {string} keyword @returns {Engine}
 */
function keywordEngine(keyword) {
  if (keyword === "") return NEVER;
  const first = keyword[0] ?? "";
  const last = keyword.at(-1) ?? "";
  const source =
    (WORD_CHAR.test(first) ? "(?<![\\p{L}\\p{N}_])" : "") +
    escapeLiteral(keyword) +
    (WORD_CHAR.test(last) ? "(?![\\p{L}\\p{N}_])" : "");
  const re = new RegExp(source, "giu");
  return {
    hits: (text) => {
      re.lastIndex = 0;
      return re.test(text);
    },
    *spans(text) {
      re.lastIndex = 0; // matchAll starts where the last test() stopped
      for (const m of text.matchAll(re)) yield [m.index, m.index + m[0].length];
    },
  };
}

/** @param {RE2JS} re @returns {Engine} */
function regexEngine(re) {
  return {
    // The DFA answers the common case (no match) without a Matcher; zero-width matches (`\b`) never count.
    hits: (text) => {
      if (!re.test(text)) return false;
      const m = re.matcher(text);
      while (m.find()) if (m.end() > m.start()) return true;
      return false;
    },
    *spans(text) {
      const m = re.matcher(text);
      while (m.find()) if (m.end() > m.start()) yield [m.start(), m.end()];
    },
  };
}

/** @param {string} pattern */
function compileRegex(pattern) {
  /** @type {RE2JS} */
  let re;
  try {
    re = RE2JS.compile(pattern);
  } catch (err) {
    if (err instanceof RE2JSException)
      throw new PatternError(`invalid regex (RE2 syntax: no backreferences or lookaround): ${err.message}`);
    throw err;
  }
  if (re.programSize() > MAX_PROGRAM_SIZE)
    throw new PatternError("regex is too complex (reduce repetition counts or alternatives)");
  // A pattern matching the empty text would "match" between every two characters.
  if (re.testExact("")) throw new PatternError("regex must not match an empty text");
  return re;
}

/**
 * Keywords are folded like the text; a regex runs unchanged on both forms (folding it could change
 * its meaning).
 * @param {RuleMatch} match @returns {Matcher} @throws {PatternError} when the pattern is refused
 */
export function compileMatcher(match) {
  if (match.pattern.length === 0) throw new PatternError("pattern must not be empty");
  if (match.pattern.length > MAX_PATTERN_LENGTH)
    throw new PatternError(`pattern must be at most ${MAX_PATTERN_LENGTH} characters`);
  if (match.type === "keyword") {
    const engine = keywordEngine(match.pattern);
    const folded = foldText(match.pattern)?.text;
    return matcherOf(engine, folded === undefined ? engine : keywordEngine(folded));
  }
  const engine = regexEngine(compileRegex(match.pattern));
  return matcherOf(engine, engine);
}

/**
 * `flag` only records; `redact` replaces every match and later rules see the result; the first
 * matching `block` stops. Unchanged texts come back as the same strings.
 * @param {readonly CompiledRule[]} rules @param {readonly string[]} texts @returns {RulesOutcome}
 */
export function applyCompiledRules(rules, texts) {
  const out = [...texts];
  /** @type {(ScanText | undefined)[]} */
  const scans = [];
  /** @type {FiredRule[]} */
  const fired = [];
  for (const rule of rules) {
    let hit = false;
    for (let i = 0; i < out.length; i++) {
      const text = /** @type {string} */ (out[i]);
      if (!text) continue;
      const scan = (scans[i] ??= scanText(text));
      if (!rule.matcher.test(scan)) continue;
      hit = true;
      if (rule.action !== "redact") break;
      out[i] = rule.matcher.redact(scan);
      scans[i] = undefined;
    }
    if (!hit) continue;
    fired.push({ id: rule.id, name: rule.name, action: rule.action, stage: rule.stage });
    if (rule.action === "block") return { texts: out, fired, blocked: true };
  }
  return { texts: out, fired, blocked: false };
}
