import { yieldToLoop, SLICE_MS } from "./map-yielding";
import { ENCODING_FORMAT, type EncodingFormat } from "./schemas";

/** OpenAI's base64 encoding: the vector's float32 values, little-endian, as one base64 string. */
export function vectorToBase64(v: ArrayLike<number>): string {
  const b = Buffer.allocUnsafe(v.length * 4);
  for (let i = 0; i < v.length; i++) b.writeFloatLE(v[i]!, i * 4);
  return b.toString("base64");
}

interface EmbeddingListArgs {
  model: string;
  vectors: ArrayLike<number>[];
  format: EncodingFormat;
  promptTokens: number;
}

const toItem = (v: ArrayLike<number>, index: number, format: EncodingFormat) => ({
  object: "embedding" as const,
  index,
  embedding: format === ENCODING_FORMAT.base64 ? vectorToBase64(v) : Array.from(v),
});

/** OpenAI's embeddings list object; `model` is the requested slug. */
export function toEmbeddingList(args: EmbeddingListArgs) {
  return {
    object: "list" as const,
    data: args.vectors.map((v, index) => toItem(v, index, args.format)),
    model: args.model,
    usage: { prompt_tokens: args.promptTokens, total_tokens: args.promptTokens },
  };
}

/**
 * toEmbeddingList's JSON as a stream, a slice of items per pull with a yield to the event loop
 * before each: 2,048 vectors of 3,072 floats are about 130 MB of JSON, a second or more of work
 * that must not stop every other call.
 */
export function embeddingListStream(args: EmbeddingListArgs): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const { model, usage } = toEmbeddingList({ ...args, vectors: [] });
  const tail = JSON.stringify({ model, usage }).slice(1);
  let next = 0;
  return new ReadableStream({
    start(controller) {
      controller.enqueue(encoder.encode('{"object":"list","data":['));
    },
    async pull(controller) {
      await yieldToLoop();
      const sliceStart = performance.now();
      let chunk = "";
      while (next < args.vectors.length && performance.now() - sliceStart < SLICE_MS) {
        chunk += `${next > 0 ? "," : ""}${JSON.stringify(toItem(args.vectors[next]!, next, args.format))}`;
        next++;
      }
      if (next < args.vectors.length) return controller.enqueue(encoder.encode(chunk));
      controller.enqueue(encoder.encode(`${chunk}],${tail}`));
      controller.close();
    },
  });
}
