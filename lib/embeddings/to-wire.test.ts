import { describe, expect, it } from "vitest";
import { toEmbeddingList, vectorToBase64 } from "./to-wire";

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
});
