import "server-only";
import { holdCredit, type CreditHold } from "@/lib/billing/lease";
import { costMicro } from "@/lib/models/pricing";
import { embeddingPrices } from "./pricing";

/** Held above our token count: the provider's tokenizer may count the same text higher than ours. */
const EMBED_HOLD_MARGIN = 1.25;

/** What `tokens` input tokens cost at `microPerM`, in whole µO₮. */
export function embeddingCostMicro(microPerM: number, tokens: number): number {
  return costMicro({ promptTokens: tokens, completionTokens: 0, cachedTokens: 0 }, embeddingPrices(microPerM));
}

/**
 * Holds what embedding texts of `countedTokens` (our count) can cost, before the provider is called.
 * @throws AppError insufficient_balance (402) when the company cannot cover it.
 */
export function holdEmbedding(companyId: string, microPerM: number, countedTokens: number): Promise<CreditHold> {
  return holdCredit(companyId, embeddingCostMicro(microPerM, Math.ceil(countedTokens * EMBED_HOLD_MARGIN)));
}
