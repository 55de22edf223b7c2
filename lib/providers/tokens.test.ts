import { describe, expect, it } from "vitest";
import { countPromptTokens, promptTokenBound } from "./tokens";
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
