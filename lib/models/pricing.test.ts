import { describe, expect, it } from "vitest";
import { costMicro, worstCaseMicro } from "./pricing";

// gpt-5: $1.25 / $0.125 cached / $10 per M tokens = 1,250 / 125 / 10,000 O₮ per M.
const gpt5 = { inputMicroPerM: 1_250_000_000, cachedInputMicroPerM: 125_000_000, outputMicroPerM: 10_000_000_000 };

describe("token pricing", () => {
  it("bills uncached input, cached input and output at their own prices", () => {
    // 1000 prompt (400 cached) + 200 output:
    // 600 × 1250 + 400 × 125 + 200 × 10000 O₮/M = 0.75 + 0.05 + 2 O₮ = 2.8 O₮
    expect(costMicro({ promptTokens: 1000, cachedTokens: 400, completionTokens: 200 }, gpt5)).toBe(2_800_000);
  });

  it("rounds half up to whole µO₮ and stays exact for huge counts", () => {
    const tiny = { inputMicroPerM: 1, cachedInputMicroPerM: 1, outputMicroPerM: 1 };
    expect(costMicro({ promptTokens: 500_000, cachedTokens: 0, completionTokens: 0 }, tiny)).toBe(1);
    expect(costMicro({ promptTokens: 499_999, cachedTokens: 0, completionTokens: 0 }, tiny)).toBe(0);
    const opus = {
      inputMicroPerM: 15_000_000_000,
      cachedInputMicroPerM: 1_500_000_000,
      outputMicroPerM: 75_000_000_000,
    };
    expect(costMicro({ promptTokens: 1_000_000, cachedTokens: 0, completionTokens: 1_000_000 }, opus)).toBe(
      90_000_000_000,
    );
  });

  it("never counts more cached tokens than prompt tokens", () => {
    expect(costMicro({ promptTokens: 10, cachedTokens: 50, completionTokens: 0 }, gpt5)).toBe(1250);
  });

  it("worst case = all input uncached plus the output cap", () => {
    expect(worstCaseMicro(1000, 100, gpt5)).toBe(1_250_000 + 1_000_000);
  });
});
