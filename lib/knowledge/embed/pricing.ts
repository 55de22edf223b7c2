import type { Prices } from "@/lib/models/pricing";

/** OpenAI's list prices of its embedding models, in O₮ (1 O₮ = $0.001) per million input tokens. */
const LIST_OT_PER_M: Record<string, number> = {
  "text-embedding-3-small": 20,
  "text-embedding-3-large": 130,
  "text-embedding-ada-002": 100,
};

/**
 * µO₮ per million input tokens of `model`: the override when set, else a known list price; null
 * when unknown, so the caller refuses rather than embedding for free.
 */
export function embeddingMicroPerM(model: string, overrideOtPerM?: number): number | null {
  const ot = overrideOtPerM ?? LIST_OT_PER_M[model.slice(model.lastIndexOf("/") + 1)];
  return ot === undefined ? null : Math.round(ot * 1_000_000);
}

/** The prices `costMicro` takes for an embedding: input tokens only, never cached. */
export function embeddingPrices(microPerM: number): Prices {
  return { inputMicroPerM: microPerM, cachedInputMicroPerM: microPerM, outputMicroPerM: 0 };
}
