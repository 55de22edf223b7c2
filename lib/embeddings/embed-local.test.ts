import { describe, expect, it } from "vitest";
import { embedOffline, OFFLINE_DIM } from "@/lib/knowledge/embed/offline";
import { embedLocal, foldVector } from "./embed-local";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (v: Float32Array) => Math.sqrt(dot(v, v));

describe("local-embedding dimensions", () => {
  it("folds each vector to the asked length, unit norm, keeping every word", async () => {
    const texts = ["invoices are due in thirty days", "refunds take five business days"];
    const [a, b] = await embedLocal({ kind: "text", texts }, 64);
    expect(a).toHaveLength(64);
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect(norm(b!)).toBeCloseTo(1, 5);
    // For a divisor of 384, folding equals hashing into that many buckets: a one-word text lands in one bucket.
    const one = foldVector(embedOffline("invoice"), 128);
    expect(one.filter((x) => x !== 0)).toHaveLength(1);
    // No word is dropped: every word of the text still moves the folded vector.
    for (const word of texts[0]!.split(" ").filter((w) => w.length > 3)) {
      const without = foldVector(embedOffline(texts[0]!.replace(word, "")), 64);
      expect(dot(a!, without)).toBeLessThan(0.999);
    }
  });

  it("the full size, or none, is the knowledge base's own vector", async () => {
    const text = "shipping to Berlin";
    const [full] = await embedLocal({ kind: "text", texts: [text] }, OFFLINE_DIM);
    const [plain] = await embedLocal({ kind: "text", texts: [text] });
    expect(Array.from(full!)).toEqual(Array.from(embedOffline(text)));
    expect(Array.from(plain!)).toEqual(Array.from(embedOffline(text)));
  });
});
