import { AppError } from "@/lib/errors";
import { embedOffline, normalize } from "@/lib/knowledge/embed/offline";
import { tokenizer } from "@/lib/providers/tokens";
import type { EmbeddingInputs } from "./inputs";
import { mapYielding } from "./map-yielding";

/**
 * `local-embedding`: the knowledge base's offline embedding, so its vectors compare with the ones
 * stored for documents (at its full size). Token ids are o200k_base ids (the local models'
 * tokenizer), decoded first: a text and its ids embed alike. `dimensions` folds each vector.
 * @throws 400 naming `input` for an id o200k_base does not have.
 */
export async function embedLocal(inputs: EmbeddingInputs, dimensions?: number | null): Promise<Float32Array[]> {
  const texts = inputs.kind === "text" ? inputs.texts : await mapYielding(inputs.ids, decodeIds);
  return mapYielding(texts, (text) => {
    const v = embedOffline(text);
    return dimensions != null && dimensions < v.length ? foldVector(v, dimensions) : v;
  });
}

/**
 * The hashed word features in `k` buckets: bucket i adds into bucket i mod k, then L2-normalised.
 * For a k dividing the full size this is the same feature hashing done with k buckets; unlike
 * truncation it drops no word.
 * @internal
 */
export function foldVector(v: Float32Array, k: number): Float32Array {
  const out = new Float32Array(k);
  for (let i = 0; i < v.length; i++) out[i % k]! += v[i]!;
  return normalize(out);
}

function decodeIds(ids: number[], i: number): string {
  try {
    return tokenizer().decode(ids);
  } catch {
    throw new AppError("invalid_request", `input[${i}] holds a token id outside the o200k_base vocabulary`, {
      param: "input",
      wireCode: "invalid_value",
    });
  }
}
