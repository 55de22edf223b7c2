import { describe, expect, it } from "vitest";
import { countPromptTokens, countTextTokens, promptTokenBound, tokenizer } from "./tokens";
import type { ChatMessage } from "./types";

describe("promptTokenBound", () => {
  it("is never below the tokenizer's count", () => {
    const prompts: ChatMessage[][] = [
      [{ role: "user", content: "Say hello to the benchmark." }],
      [
        { role: "system", content: "Ünïcödé ✓ 日本語のテキスト 🚀🚀" },
        { role: "user", content: "x".repeat(5000) },
      ],
      [{ role: "user", content: "<|endoftext|> special strings count as text" }],
      [{ role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "https://example.test/a.png" } }] }],
    ];
    for (const p of prompts) expect(promptTokenBound(p)).toBeGreaterThanOrEqual(countPromptTokens(p));
  });
});

describe("countTextTokens on runs without whitespace", () => {
  it("counts a long run in slices (BPE is quadratic in one pre-token's length), close to the whole's count", () => {
    const run = "a".repeat(5_000); // small enough to count whole here as the reference
    const whole = tokenizer().countTokens(run);
    const sliced = countTextTokens(run);
    expect(sliced).toBeGreaterThanOrEqual(whole);
    expect(sliced).toBeLessThanOrEqual(whole + Math.ceil(run.length / 256));
  });

  it("leaves ordinary text exact", () => {
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(200);
    expect(countTextTokens(text)).toBe(tokenizer().countTokens(text));
  });

  it("counts the text around long runs as usual", () => {
    const text = `before ${"x".repeat(2_000)} after`;
    expect(countTextTokens(text)).toBe(countTextTokens("before ") + countTextTokens("x".repeat(2_000)) + countTextTokens(" after"));
  });
});
