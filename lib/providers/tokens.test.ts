import { describe, expect, it } from "vitest";
import { O200K_TOKEN_SPLIT_REGEX as O200K_PRE_TOKENS } from "gpt-tokenizer/esm/encodingParams/constants";
import { MAX_TOKEN_CHARS, SLICE_CHARS, tokenSlices } from "./token-slices.mjs";
import {
  countPromptTokens,
  countTextTokens,
  countTokensYielding,
  promptTokenBound,
  tokenizer,
  truncateTextTokens,
} from "./tokens";
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
      [
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image_url", image_url: { url: "https://example.test/a.png" } },
          ],
        },
      ],
    ];
    for (const p of prompts) expect(promptTokenBound(p)).toBeGreaterThanOrEqual(countPromptTokens(p));
  });
});

describe("countTextTokens on long pre-tokens", () => {
  // Small enough to encode whole here as the reference (BPE is quadratic in one pre-token's length).
  const runs = {
    letters: "a".repeat(5_000),
    dashes: "-".repeat(5_000),
    spaces: " ".repeat(5_000),
    newlines: "\n".repeat(5_000),
    "punctuation then newlines and slashes": `-${"\n/".repeat(2_500)}`,
    "a run inside text": `before ${"x".repeat(2_000)} after ${" ".repeat(3_000)}end`,
    emoji: "🚀".repeat(2_000),
  };

  it.each(Object.entries(runs))(
    "counts %s in slices, never below the whole's count and within a few tokens of it",
    (_, text) => {
      const whole = tokenizer().countTokens(text);
      const sliced = countTextTokens(text);
      expect(sliced).toBeGreaterThanOrEqual(whole);
      expect(sliced).toBeLessThanOrEqual(whole + Math.ceil(text.length / 256) + 1);
    },
  );

  it("cuts every kind of long pre-token into slices (the whole's count would be quadratic)", () => {
    for (const text of Object.values(runs)) {
      const pieces = tokenSlices(text);
      expect(pieces.join("")).toBe(text);
      expect(pieces.length).toBeGreaterThan(1);
      for (const p of pieces) expect(longestPreToken(p)).toBeLessThanOrEqual(2 * SLICE_CHARS + 1);
    }
  });

  it("leaves ordinary text whole and exact", () => {
    const text = "The quick brown fox jumps over the lazy dog.\n\n".repeat(200);
    expect(tokenSlices(text)).toEqual([text]);
    expect(countTextTokens(text)).toBe(tokenizer().countTokens(text));
  });

  it("never cuts a surrogate pair", () => {
    for (const p of tokenSlices("🚀".repeat(2_000))) expect(p).toMatch(/^(?:🚀)+$/u);
  });

  it("counts a million characters of one run, of spaces and of newlines and slashes (each a single pre-token)", () => {
    expect(countTextTokens("a".repeat(1_000_000))).toBeGreaterThanOrEqual(1_000_000 / MAX_TOKEN_CHARS);
    expect(countTextTokens(" ".repeat(1_000_000))).toBeGreaterThanOrEqual(1_000_000 / MAX_TOKEN_CHARS);
    expect(countTextTokens(`-${"\n/".repeat(500_000)}`)).toBeGreaterThanOrEqual(1_000_000 / MAX_TOKEN_CHARS);
  });
});

describe("truncateTextTokens", () => {
  it("keeps the first maxTokens tokens of a long run, as a whole encode would", () => {
    const text = "a".repeat(5_000);
    const whole = tokenizer().encode(text);
    const { text: kept, truncated } = truncateTextTokens(text, 100);
    expect(truncated).toBe(true);
    expect(kept).toBe("a".repeat(tokenizer().decode(whole.slice(0, 100)).length));
  });

  it("cuts a million-character run or a million spaces to maxTokens", () => {
    for (const text of ["a".repeat(1_000_000), " ".repeat(1_000_000), `-${"\n/".repeat(500_000)}`]) {
      const { text: kept, truncated } = truncateTextTokens(text, 50);
      expect(truncated).toBe(true);
      expect(text.startsWith(kept)).toBe(true);
      expect(countTextTokens(kept)).toBeLessThanOrEqual(50);
      expect(kept.length).toBeGreaterThan(0);
    }
  });

  it("returns a text within the cap unchanged, special-token strings included", () => {
    const text = "Hello <|endoftext|> world";
    expect(truncateTextTokens(text, 100)).toEqual({ text, truncated: false });
    expect(truncateTextTokens("one two three four", 2)).toEqual({ text: "one two", truncated: true });
  });
});

/** The longest pre-token o200k's pre-tokenizer makes of the text (its regex, as the tokenizer runs it). */
function longestPreToken(text: string): number {
  let max = 0;
  for (const m of text.matchAll(O200K_PRE_TOKENS)) max = Math.max(max, m[0].length);
  return max;
}

describe("countTokensYielding", () => {
  it("counts as countTextTokens does, in windows (ordinary text, runs, both)", async () => {
    const prose = "The quick brown fox jumps over the lazy dog.  Twice spaced.\n".repeat(3_000);
    const texts = [prose, "a".repeat(300_000), `${prose}${" ".repeat(100_000)}${"-".repeat(100_000)}${prose}`, "short"];
    expect(await countTokensYielding(texts)).toBe(texts.reduce((n, t) => n + countTextTokens(t), 0));
  });
});
