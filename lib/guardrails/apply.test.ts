import { describe, expect, it } from "vitest";
import type { GuardrailAction, GuardrailMatchType } from "@/db/enums";
import { applyRules as applyRulesAnywhere, applyRulesNow as applyRules } from "./apply";
import { compileMatcher as compile, patternProblem, type CompiledRule, type RuleMatch } from "./compile-rule";
import { REDACTED, scanText } from "./matchers.mjs";

/** A matcher that takes plain strings, as the tests write them. */
const compileMatcher = (match: RuleMatch) => {
  const m = compile(match);
  return { test: (text: string) => m.test(scanText(text)), redact: (text: string) => m.redact(scanText(text)) };
};

const rule = (id: string, type: GuardrailMatchType, pattern: string, action: GuardrailAction): CompiledRule => ({
  id,
  name: `rule ${id}`,
  stage: "input",
  action,
  match: { type, pattern },
  matcher: compile({ type, pattern }),
});

describe("keyword matching", () => {
  it("is case-insensitive and whole-word at word-character ends", () => {
    const m = compileMatcher({ type: "keyword", pattern: "secret" });
    expect(m.test("My SECRET, ok")).toBe(true);
    expect(m.test("secrets")).toBe(false);
    expect(m.test("topsecret")).toBe(false);
    expect(m.redact("secret and Secret.")).toBe(`${REDACTED} and ${REDACTED}.`);
  });

  it("matches punctuation ends anywhere and treats pattern characters literally", () => {
    expect(compileMatcher({ type: "keyword", pattern: "$$$" }).test("win$$$now")).toBe(true);
    expect(compileMatcher({ type: "keyword", pattern: "a.b" }).test("axb")).toBe(false);
    // A hyphen is no pattern character: escaping it would be a syntax error under the `u` flag.
    expect(compileMatcher({ type: "keyword", pattern: "PIN-1234" }).test("my pin-1234 is")).toBe(true);
    expect(compileMatcher({ type: "keyword", pattern: "a-b" }).test("a_b")).toBe(false);
    expect(compileMatcher({ type: "keyword", pattern: "credit card" }).redact("my Credit Card no")).toBe(
      `my ${REDACTED} no`,
    );
    expect(compileMatcher({ type: "keyword", pattern: "café" }).test("CAFÉ!")).toBe(true);
  });
});

describe("regex validation", () => {
  it("refuses invalid syntax, backreferences, lookaround, empty matches and oversized programs", () => {
    expect(patternProblem({ type: "regex", pattern: "(a" })).toMatch(/invalid regex/);
    expect(patternProblem({ type: "regex", pattern: "(a)\\1" })).toMatch(/invalid regex/);
    expect(patternProblem({ type: "regex", pattern: "(?=a)" })).toMatch(/invalid regex/);
    expect(patternProblem({ type: "regex", pattern: "a*" })).toMatch(/empty/);
    expect(patternProblem({ type: "regex", pattern: "\\w{1,1000}" })).toMatch(/too complex/);
    expect(patternProblem({ type: "regex", pattern: "x".repeat(501) })).toMatch(/at most 500/);
    expect(patternProblem({ type: "regex", pattern: "(a+)+$" })).toBeNull();
    expect(patternProblem({ type: "regex", pattern: "(?i)sk-[a-z0-9]{20,}" })).toBeNull();
  });

  it("ignores zero-width matches", () => {
    const m = compileMatcher({ type: "regex", pattern: "\\b" });
    expect(m.test("a b")).toBe(false);
    expect(m.redact("a b")).toBe("a b");
  });

  it("answers a catastrophic-backtracking pattern on a long input (linear engine)", () => {
    const m = compileMatcher({ type: "regex", pattern: "(a+)+$" });
    const text = "a".repeat(50_000) + "b";
    expect(m.test(text)).toBe(false);
    expect(m.redact(text)).toBe(text);
  });
});

describe("applyRules", () => {
  it("redacts every match in every text, records each rule once, flags without changing", () => {
    const out = applyRules(
      [rule("r1", "regex", "\\d{3}-\\d{4}", "redact"), rule("f1", "keyword", "hello", "flag")],
      ["call 555-1234 or 555-9876", "hello", "nothing"],
    );
    expect(out.texts).toEqual([`call ${REDACTED} or ${REDACTED}`, "hello", "nothing"]);
    expect(out.fired.map((r) => r.id)).toEqual(["r1", "f1"]);
    expect(out.fired[0]).toEqual({ id: "r1", name: "rule r1", action: "redact", stage: "input" });
    expect(out.blocked).toBe(false);
  });

  it("stops at the first block; rules before it are recorded, later ones are not evaluated", () => {
    const out = applyRules(
      [rule("f", "keyword", "x", "flag"), rule("b", "keyword", "bomb", "block"), rule("r", "keyword", "x", "redact")],
      ["x bomb"],
    );
    expect(out.blocked).toBe(true);
    expect(out.fired.map((r) => r.id)).toEqual(["f", "b"]);
  });

  it("returns the same strings when nothing fires", () => {
    const texts = ["a", "b"];
    const out = applyRules([rule("b", "keyword", "bomb", "block")], texts);
    expect(out.texts).toEqual(texts);
    expect(out.fired).toEqual([]);
  });
});

describe("Unicode disguises", () => {
  const disguises = [
    "ｓｅｃｒｅｔ",
    "ＳＥＣＲＥＴ",
    "ѕecret",
    "sеcrеt",
    "se\u200bcret",
    "se\u00adcret",
    "se\u0301cret",
    "s\u0323e\u0301c\u0327ret",
    "se\u2060cr\ufeffet",
  ];

  it("a keyword matches each disguise and redacts exactly the disguised characters", () => {
    const m = compileMatcher({ type: "keyword", pattern: "secret" });
    for (const d of disguises) {
      expect(m.test(`the ${d} code`), JSON.stringify(d)).toBe(true);
      expect(m.redact(`the ${d} code`), JSON.stringify(d)).toBe(`the ${REDACTED} code`);
    }
    expect(m.test("ｓｅｃｒｅｔｓ")).toBe(false);
    expect(m.test("séance")).toBe(false);
  });

  it("a regex matches the folded text too, keeping its own case rules", () => {
    const m = compileMatcher({ type: "regex", pattern: "secret" });
    for (const d of disguises.filter((d) => d !== "ＳＥＣＲＥＴ"))
      expect(m.redact(`[${d}]`), JSON.stringify(d)).toBe(`[${REDACTED}]`);
    expect(m.test("ＳＥＣＲＥＴ")).toBe(false);
    expect(compileMatcher({ type: "regex", pattern: "(?i)secret" }).test("ＳＥＣＲＥＴ")).toBe(true);
    expect(compileMatcher({ type: "regex", pattern: "\\d{3}-\\d{4}" }).redact("call ５５５-１２３４ now")).toBe(
      `call ${REDACTED} now`,
    );
  });

  it("keeps matching text in other scripts, and keeps surrounding characters intact", () => {
    expect(compileMatcher({ type: "keyword", pattern: "секрет" }).redact("это секрет!")).toBe(`это ${REDACTED}!`);
    expect(compileMatcher({ type: "regex", pattern: "пароль\\s*\\d+" }).redact("мой пароль 123.")).toBe(
      `мой ${REDACTED}.`,
    );
    expect(compileMatcher({ type: "keyword", pattern: "key" }).redact("🔑 ｋｅｙ 🔑")).toBe(`🔑 ${REDACTED} 🔑`);
  });

  it("a rule applied through applyRules redacts the original text", () => {
    const out = applyRules([rule("r", "keyword", "secret", "redact")], ["my ѕe\u200bcret and SECRET"]);
    expect(out.texts).toEqual([`my ${REDACTED} and ${REDACTED}`]);
  });
});

/** Event-loop turns taken while `work` runs: none means it held the loop until it was done. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let live = true;
  const spin = () => {
    turns++;
    if (live) setImmediate(spin);
  };
  setImmediate(spin);
  const result = await work();
  live = false;
  return { result, turns };
}

describe("applyRules on a large text", () => {
  const rules = [rule("f", "regex", "(?i)sk-[a-z0-9]{20,}", "flag"), rule("r", "keyword", "secret", "redact")];
  const text = "plain words and more plain words. ".repeat(60_000) + "the ѕecret sk-abcdefghijklmnopqrstuvwxyz end";

  it("scans off the event loop and answers as the inline scan does", async () => {
    const { result, turns } = await turnsDuring(() => applyRulesAnywhere(rules, [text, "short secret"]));
    expect(turns).toBeGreaterThan(0);
    expect(result).toEqual(applyRules(rules, [text, "short secret"]));
    expect(result.fired.map((r) => r.id)).toEqual(["f", "r"]);
    expect(result.texts[0]!.endsWith(`the ${REDACTED} sk-abcdefghijklmnopqrstuvwxyz end`)).toBe(true);
    expect(result.texts[1]).toBe(`short ${REDACTED}`);
  });

  it("scans a small text inline", async () => {
    const { result, turns } = await turnsDuring(() => applyRulesAnywhere(rules, ["a secret"]));
    expect(turns).toBe(0);
    expect(result.texts).toEqual([`a ${REDACTED}`]);
  });
});
