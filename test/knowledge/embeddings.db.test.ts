import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embedOffline, OFFLINE_DIM } from "@/lib/knowledge/embed/offline";
import { providerEmbedder } from "@/lib/knowledge/embeddings";

/** The provider embedder against a loopback stand-in for an OpenAI-compatible `/embeddings`. */
let server: http.Server;
let base: string;
const seen: { auth?: string; body: { model: string; input: string[]; dimensions?: number } }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d: Buffer) => (raw += d.toString("utf8")));
    req.on("end", () => {
      const body = JSON.parse(raw) as { model: string; input: string[] };
      seen.push({ auth: req.headers.authorization, body });
      // Out of order on purpose: the client must sort by `index`.
      const data = body.input
        .map((text, index) => ({ object: "embedding", index, embedding: [text.length, 1, 0, 0] }))
        .reverse();
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ object: "list", data, model: body.model }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const group = () => ({
  id: "openai",
  protocol: "openai" as const,
  keyVar: "OPENAI_API_KEY",
  baseUrlVar: "OPENAI_BASE_URL",
  apiKey: "sk-test",
  baseUrl: base,
});

describe("embeddings", () => {
  it("a provider's /embeddings: the group's key, `dimensions` for text-embedding-3, vectors in input order, normalised", async () => {
    const emb = providerEmbedder("openai:text-embedding-3-small", group());
    expect(emb.model).toBe("openai:text-embedding-3-small");
    const {
      vectors: [a, b],
    } = await emb.embed(["abc", "a"]);
    expect(seen.at(-1)).toEqual({
      auth: "Bearer sk-test",
      body: { model: "text-embedding-3-small", input: ["abc", "a"], dimensions: 512 },
    });
    expect(Array.from(a!)).toEqual([3 / Math.sqrt(10), 1 / Math.sqrt(10), 0, 0].map(Math.fround));
    expect(Array.from(b!)).toEqual([Math.SQRT1_2, Math.SQRT1_2, 0, 0].map(Math.fround));
  });

  it("refuses a group without a key", () => {
    expect(() => providerEmbedder("openai:text-embedding-3-small", { ...group(), apiKey: undefined })).toThrow(
      /no base URL or key/,
    );
  });

  it("refuses a model whose price is unknown (no EMBEDDING_PRICE_PER_M) rather than embedding for free; a known one is priced", () => {
    expect(() => providerEmbedder("openai:nomic-embed-text", group())).toThrow(
      /price is unknown: set EMBEDDING_PRICE_PER_M/,
    );
    expect(providerEmbedder("openai:text-embedding-3-small", group()).microPerM).toBe(20_000_000);
  });

  it("the offline embedding: fixed size, unit length, same words → same vector, stemming merges forms", () => {
    const v = embedOffline("Boundary layers on swept wings");
    expect(v.length).toBe(OFFLINE_DIM);
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    const cos = (x: Float32Array, y: Float32Array) => x.reduce((s, xi, i) => s + xi * y[i]!, 0);
    expect(cos(v, embedOffline("swept wing boundary layer"))).toBeCloseTo(1, 5);
    expect(cos(v, embedOffline("heat transfer in pipes"))).toBeLessThan(0.5);
    expect(Array.from(embedOffline("the of and"))).toEqual(new Array(OFFLINE_DIM).fill(0));
  });
});
