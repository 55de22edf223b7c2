/** Prices are µO₮ per million tokens; costs are whole µO₮. */
export interface Prices {
  inputMicroPerM: number;
  cachedInputMicroPerM: number;
  outputMicroPerM: number;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** Cached input tokens, counted inside promptTokens (SPEC) and billed at the cached price. */
  cachedTokens: number;
}

const M = 1_000_000n;

/** Exact cost in µO₮, rounded half up once at the end; BigInt because tokens × price can pass 2^53. */
export function costMicro(usage: TokenUsage, prices: Prices): number {
  const cached = BigInt(Math.min(usage.cachedTokens, usage.promptTokens));
  const uncached = BigInt(usage.promptTokens) - cached;
  const numerator =
    uncached * BigInt(prices.inputMicroPerM) +
    cached * BigInt(prices.cachedInputMicroPerM) +
    BigInt(usage.completionTokens) * BigInt(prices.outputMicroPerM);
  return Number((numerator + M / 2n) / M);
}

/** The most a call can cost: every input token uncached plus the whole output cap. */
export function worstCaseMicro(promptTokens: number, maxOutputTokens: number, prices: Prices): number {
  return costMicro({ promptTokens, completionTokens: maxOutputTokens, cachedTokens: 0 }, prices);
}
