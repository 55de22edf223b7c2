import { describe, expect, it } from "vitest";
import { answerCostOt } from "./cost";

// local-chat-latest's catalog prices: 100 / 10 / 400 O₮ per 1M tokens.
const local = { input: 100, cached_input: 10, output: 400 };

describe("answer cost", () => {
  it("bills uncached input, cached input and output at their own prices", () => {
    // (1000 − 400) × 100 + 400 × 10 + 200 × 400 = 60,000 + 4,000 + 80,000 O₮·tokens/M = 0.144 O₮
    const usage = {
      prompt_tokens: 1000,
      completion_tokens: 200,
      total_tokens: 1200,
      prompt_tokens_details: { cached_tokens: 400 },
    };
    expect(answerCostOt(usage, local)).toBe(0.144);
  });

  it("treats a missing cached count as zero", () => {
    expect(answerCostOt({ prompt_tokens: 25, completion_tokens: 31, total_tokens: 56 }, local)).toBe(0.0149);
  });

  it("rounds to whole µO₮ like the ledger, with fractional custom prices", () => {
    // 7 × 1.5 + 3 × 2.25 = 17.25 O₮·tokens/M = 0.00001725 O₮ → 17 µO₮
    expect(
      answerCostOt(
        { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
        { input: 1.5, cached_input: 0, output: 2.25 },
      ),
    ).toBe(0.000017);
  });
});
