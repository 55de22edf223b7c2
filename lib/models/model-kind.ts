import { readCatalog } from "@/db/catalog/sync";
import { MODEL_KIND, type ModelKind } from "@/db/enums";

export { MODEL_KIND, type ModelKind };

export interface EmbeddingSpec {
  /** The vector length the model returns by default. */
  dimensions: number;
  /** The model can return shorter vectors on request (`dimensions`). */
  supportsDimensions: boolean;
}

let embeddingSpecs: Map<string, EmbeddingSpec> | undefined;

/**
 * An embedding slug's vector spec, null for a chat model. Read from the catalog file (the `models`
 * table has no kind column): a slug that left the file counts as chat, and is deprecated anyway.
 */
export function embeddingSpec(slug: string): EmbeddingSpec | null {
  if (!embeddingSpecs) {
    embeddingSpecs = new Map();
    for (const g of readCatalog().groups)
      for (const m of g.models)
        if (m.kind === MODEL_KIND.embedding)
          embeddingSpecs.set(m.slug, {
            dimensions: m.dimensions ?? 0,
            supportsDimensions: m.supports_dimensions === true,
          });
  }
  return embeddingSpecs.get(slug) ?? null;
}

export const modelKind = (slug: string): ModelKind => (embeddingSpec(slug) ? MODEL_KIND.embedding : MODEL_KIND.chat);
