import { describe, expect, it } from "vitest";
import type { GuardrailAction, GuardrailMatchType } from "@/db/enums";
import { applyRules } from "./apply";
import { compileMatcher, patternProblem, REDACTED, type CompiledRule } from "./compile-rule";

const rule = (id: string, type: GuardrailMatchType, pattern: string, action: GuardrailAction): CompiledRule => ({
  id,
  name: `rule ${id}`,
  stage: "input",
  action,
  matcher: compileMatcher({ type, pattern }),
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
    expect(compileMatcher({ type: "keyword", pattern: "credit card" }).redact("my Credit Card no")).toBe(`my ${REDACTED} no`);
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
    const out = applyRules([rule("r1", "regex", "\\d{3}-\\d{4}", "redact"), rule("f1", "keyword", "hello", "flag")], ["call 555-1234 or 555-9876", "hello", "nothing"]);
    expect(out.texts).toEqual([`call ${REDACTED} or ${REDACTED}`, "hello", "nothing"]);
    expect(out.fired.map((r) => r.id)).toEqual(["r1", "f1"]);
    expect(out.fired[0]).toEqual({ id: "r1", name: "rule r1", action: "redact", stage: "input" });
    expect(out.blocked).toBe(false);
  });

  it("stops at the first block; rules before it are recorded, later ones are not evaluated", () => {
    const out = applyRules([rule("f", "keyword", "x", "flag"), rule("b", "keyword", "bomb", "block"), rule("r", "keyword", "x", "redact")], ["x bomb"]);
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
