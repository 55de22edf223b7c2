import { describe, expect, it } from "vitest";
import { embeddingMicroPerM } from "./pricing";

describe("embedding prices", () => {
  it("list prices of known models, a router's `vendor/model` too; EMBEDDING_PRICE_PER_M wins; unknown without one is null", () => {
    expect(embeddingMicroPerM("text-embedding-3-small")).toBe(20_000_000);
    expect(embeddingMicroPerM("openai/text-embedding-3-large")).toBe(130_000_000);
    expect(embeddingMicroPerM("text-embedding-3-small", 0.5)).toBe(500_000);
    expect(embeddingMicroPerM("nomic-embed-text", 0)).toBe(0);
    expect(embeddingMicroPerM("nomic-embed-text")).toBeNull();
  });
});
