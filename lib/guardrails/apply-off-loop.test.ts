import { describe, expect, it } from "vitest";
import type { GuardrailAction, GuardrailMatchType } from "@/db/enums";
import { applyRules, applyRulesNow } from "./apply";
import { compileMatcher, REDACTED, type CompiledRule } from "./compile-rule";

const rule = (id: string, type: GuardrailMatchType, pattern: string, action: GuardrailAction): CompiledRule => ({
  id,
  name: `rule ${id}`,
  stage: "input",
  action,
  match: { type, pattern },
  matcher: compileMatcher({ type, pattern }),
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
    const { result, turns } = await turnsDuring(() => applyRules(rules, [text, "short secret"]));
    expect(turns).toBeGreaterThan(0);
    expect(result).toEqual(applyRulesNow(rules, [text, "short secret"]));
    expect(result.fired.map((r) => r.id)).toEqual(["f", "r"]);
    expect(result.texts[0]!.endsWith(`the ${REDACTED} sk-abcdefghijklmnopqrstuvwxyz end`)).toBe(true);
    expect(result.texts[1]).toBe(`short ${REDACTED}`);
  });

  it("scans a small text inline", async () => {
    const { result, turns } = await turnsDuring(() => applyRules(rules, ["a secret"]));
    expect(turns).toBe(0);
    expect(result.texts).toEqual([`a ${REDACTED}`]);
  });
});
