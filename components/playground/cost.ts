import { microToOt, otToMicro } from "@/lib/billing/money";
import { costMicro } from "@/lib/models/pricing";
import type { ChatUsage } from "./stream-chat";

/** O₮ per 1M tokens, as GET /api/panel/models gives them. */
export interface PricesPerM {
  input: number;
  cached_input: number;
  output: number;
}

/**
 * An answer's cost at the model's prices, with the gateway's formula and rounding (whole µO₮), so
 * it matches the call's ledger row.
 */
export function answerCostOt(usage: ChatUsage, prices: PricesPerM): number {
  return microToOt(
    costMicro(
      {
        promptTokens: usage.prompt_tokens,
        completionTokens: usage.completion_tokens,
        cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
      },
      {
        inputMicroPerM: otToMicro(prices.input),
        cachedInputMicroPerM: otToMicro(prices.cached_input),
        outputMicroPerM: otToMicro(prices.output),
      },
    ),
  );
}
