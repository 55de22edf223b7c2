import type { Prices } from "@/lib/models/pricing";

/** OpenAI's list prices of its embedding models, in O₮ (1 O₮ = $0.001) per million input tokens. */
const LIST_OT_PER_M: Record<string, number> = {
  "text-embedding-3-small": 20,
  "text-embedding-3-large": 130,
  "text-embedding-ada-002": 100,
};

/**
 * What a million input tokens of `model` cost, in µO₮: `overrideOtPerM` (EMBEDDING_PRICE_PER_M)
 * when set, else the list price of a known model (`openai/text-embedding-3-small` of a router too);
 * null when neither is known, so the caller refuses rather than embedding for free.
 */
export function embeddingMicroPerM(model: string, overrideOtPerM?: number): number | null {
  const ot = overrideOtPerM ?? LIST_OT_PER_M[model.slice(model.lastIndexOf("/") + 1)];
  return ot === undefined ? null : Math.round(ot * 1_000_000);
}

/** The prices `costMicro` takes for an embedding: input tokens only, never cached. */
export function embeddingPrices(microPerM: number): Prices {
  return { inputMicroPerM: microPerM, cachedInputMicroPerM: microPerM, outputMicroPerM: 0 };
}
