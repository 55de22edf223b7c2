import { microToOt } from "@/lib/billing/money";
import { toUnix } from "@/lib/time";
import type { EffectiveModel } from "./effective-model";
import { embeddingSpec, MODEL_KIND } from "./model-kind";

const LOCAL_NOTE = "Development model: offline and deterministic, no key or network needed; not a real LLM.";

/** CONTRACT 7 model object: `owned_by` is the provider group; prices in O₮ per million tokens. */
export function toPublicModel(e: EffectiveModel) {
  const m = e.model;
  const embedding = embeddingSpec(m.slug);
  return {
    id: m.slug,
    object: "model" as const,
    created: toUnix(m.createdAt),
    owned_by: m.providerGroup,
    status: e.status,
    recommended: m.recommended,
    replacement: m.replacement,
    context_window: m.contextWindow,
    modalities: m.supportsImages ? ["text", "image"] : ["text"],
    supports_tools: m.supportsTools,
    pricing: {
      unit: "O₮ per 1M tokens",
      input: microToOt(e.prices.inputMicroPerM),
      cached_input: microToOt(e.prices.cachedInputMicroPerM),
      output: microToOt(e.prices.outputMicroPerM),
    },
    description: m.providerGroup === "local" ? (m.description ?? LOCAL_NOTE) : m.description,
    development: m.providerGroup === "local",
    /** Extension: which endpoint takes the slug (`embedding`: POST /v1/embeddings only). */
    type: embedding ? MODEL_KIND.embedding : MODEL_KIND.chat,
    ...(embedding ? { dimensions: embedding.dimensions, supports_dimensions: embedding.supportsDimensions } : {}),
  };
}
