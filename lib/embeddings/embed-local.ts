import { AppError } from "@/lib/errors";
import { embedOffline } from "@/lib/knowledge/embed/offline";
import { tokenizer } from "@/lib/providers/tokens";
import type { EmbeddingInputs } from "./inputs";
import { mapYielding } from "./map-yielding";

/**
 * `local-embedding`: the knowledge base's offline embedding, so its vectors compare with the ones
 * stored for documents. Token ids are o200k_base ids (the local models' tokenizer), decoded first:
 * a text and its ids embed alike.
 * @throws 400 naming `input` for an id o200k_base does not have.
 */
export async function embedLocal(inputs: EmbeddingInputs): Promise<Float32Array[]> {
  const texts = inputs.kind === "text" ? inputs.texts : await mapYielding(inputs.ids, decodeIds);
  return mapYielding(texts, (text) => embedOffline(text));
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
