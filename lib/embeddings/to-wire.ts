import { ENCODING_FORMAT, type EncodingFormat } from "./schemas";

/** OpenAI's base64 encoding: the vector's float32 values, little-endian, as one base64 string. */
export function vectorToBase64(v: ArrayLike<number>): string {
  const b = Buffer.allocUnsafe(v.length * 4);
  for (let i = 0; i < v.length; i++) b.writeFloatLE(v[i]!, i * 4);
  return b.toString("base64");
}

/** OpenAI's embeddings list object; `model` is the requested slug. */
export function toEmbeddingList(args: {
  model: string;
  vectors: ArrayLike<number>[];
  format: EncodingFormat;
  promptTokens: number;
}) {
  return {
    object: "list" as const,
    data: args.vectors.map((v, index) => ({
      object: "embedding" as const,
      index,
      embedding: args.format === ENCODING_FORMAT.base64 ? vectorToBase64(v) : Array.from(v),
    })),
    model: args.model,
    usage: { prompt_tokens: args.promptTokens, total_tokens: args.promptTokens },
  };
}
