import { describe, expect, it } from "vitest";
import { embeddingListStream, toEmbeddingList, vectorToBase64 } from "./to-wire";

const streamText = (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

describe("embeddings wire shape", () => {
  it("base64 is the float32 values little-endian, as OpenAI encodes them", () => {
    // 1.0f = 0x3f800000, -2.0f = 0xc0000000: bytes 00 00 80 3f, 00 00 00 c0.
    expect(vectorToBase64([1, -2])).toBe(Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]).toString("base64"));
    expect(vectorToBase64([])).toBe("");
  });

  it("the list object: one item per vector in order, usage totals equal to prompt tokens", () => {
    const list = toEmbeddingList({
      model: "local-embedding",
      vectors: [Float32Array.of(0.5, 0.25), [1, 0]],
      format: "float",
      promptTokens: 7,
    });
    expect(list).toEqual({
      object: "list",
      data: [
        { object: "embedding", index: 0, embedding: [0.5, 0.25] },
        { object: "embedding", index: 1, embedding: [1, 0] },
      ],
      model: "local-embedding",
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
    const b64 = toEmbeddingList({ model: "m", vectors: [[1]], format: "base64", promptTokens: 1 });
    expect(b64.data[0]!.embedding).toBe("AACAPw==");
  });

  it("the streamed body is the list object's JSON, for no, one and many vectors, float or base64", async () => {
    for (const vectors of [[], [[0.5, -1]], Array.from({ length: 500 }, (_, i) => Float32Array.of(i / 7, -(i + 1)))]) {
      for (const format of ["float", "base64"] as const) {
        const args = { model: "local-embedding", vectors, format, promptTokens: 3 };
        const text = await streamText(embeddingListStream(args));
        expect(JSON.parse(text)).toEqual(toEmbeddingList(args));
        expect(text).toBe(JSON.stringify(toEmbeddingList(args)));
      }
    }
  });

  it("lets other work run while a large body is written", async () => {
    const vectors = Array.from({ length: 4000 }, () => new Float32Array(1536).fill(0.123456789));
    let otherRan = false;
    setImmediate(() => (otherRan = true));
    const reader = embeddingListStream({ model: "m", vectors, format: "float", promptTokens: 1 }).getReader();
    let sawOtherBeforeEnd = false;
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
      sawOtherBeforeEnd ||= otherRan;
    }
    expect(sawOtherBeforeEnd).toBe(true);
  });
});
