import { createOpenAI } from "@ai-sdk/openai";
import { embed, embedMany } from "ai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { foldVector } from "@/lib/embeddings/embed-local";
import { embedOffline } from "@/lib/knowledge/embed/offline";
import { countTextTokens, tokenizer } from "@/lib/providers/tokens";
import { makeCompany, makeKey } from "../support/factories";
import { useGateway } from "../support/gateway";

/**
 * POST /v1/embeddings end to end with the official `openai` client: the offline `local-embedding`
 * and an OpenAI-group model through the fake upstream, each call billed once as a `usage` entry.
 */
const gw = useGateway();

/** Catalog prices, O₮ per 1M input tokens. */
const PRICE = { "local-embedding": 10, "text-embedding-3-small": 20 };

const client = (key: string) => new OpenAI({ baseURL: `${gw.server.url}/v1`, apiKey: key, maxRetries: 0 });

async function ledger(key: string) {
  const res = await gw.call(key, "GET", "/v1/usage");
  expect(res.status).toBe(200);
  return res.json as { balance_ot: number; data: any[] };
}

const embeddingEntries = async (key: string) =>
  (await ledger(key)).data.filter((e) => e.kind !== "grant" && e.source === "embeddings");

/** The float32 values of OpenAI's base64 encoding. */
const fromBase64 = (s: string) => {
  const b = Buffer.from(s, "base64");
  return Array.from({ length: b.length / 4 }, (_, i) => b.readFloatLE(i * 4));
};

const float32 = (v: ArrayLike<number>) => Array.from(Float32Array.from(v as number[]));

describe("local-embedding (offline)", () => {
  it("SDK default (it asks for base64 and decodes): the knowledge base's vectors, o200k token usage, billed once", async () => {
    const { key } = await gw.tenant(100);
    const texts = ["The quick brown fox jumps over the lazy dog.", "Invoices are due in thirty days."];
    const { data: res, response } = await client(key)
      .embeddings.create({ model: "local-embedding", input: texts })
      .withResponse();
    const tokens = texts.reduce((n, t) => n + countTextTokens(t), 0);
    expect(res.object).toBe("list");
    expect(res.model).toBe("local-embedding");
    expect(res.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    expect(res.data.map((d) => [d.object, d.index])).toEqual([
      ["embedding", 0],
      ["embedding", 1],
    ]);
    for (const [i, t] of texts.entries()) {
      expect(res.data[i]!.embedding).toHaveLength(384);
      expect(res.data[i]!.embedding).toEqual(Array.from(embedOffline(t)));
    }
    expect(gw.fake.requests).toHaveLength(0);

    const entries = await embeddingEntries(key);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      object: "ledger.entry",
      kind: "usage",
      source: "embeddings",
      model: "local-embedding",
      prompt_tokens: tokens,
      completion_tokens: 0,
      reference_id: response.headers.get("x-request-id"),
      metadata: { purpose: "api", inputs: 2 },
    });
    expect(entries[0].amount_ot).toBeCloseTo(-(tokens * PRICE["local-embedding"]) / 1e6, 6);
    expect((await ledger(key)).balance_ot).toBeCloseTo(100 - (tokens * PRICE["local-embedding"]) / 1e6, 6);
  });

  it("encoding_format float and base64 on the wire; the SDK leaves an explicit base64 undecoded", async () => {
    const { key } = await gw.tenant(100);
    const input = "Refunds are processed within five business days.";
    const float = await gw.call(key, "POST", "/v1/embeddings", { model: "local-embedding", input });
    expect(float.status).toBe(200);
    expect(float.json.data[0].embedding).toHaveLength(384);
    expect(float.json.data[0].embedding.every((x: unknown) => typeof x === "number")).toBe(true);

    const b64 = await gw.call(key, "POST", "/v1/embeddings", {
      model: "local-embedding",
      input,
      encoding_format: "base64",
    });
    expect(b64.status).toBe(200);
    expect(typeof b64.json.data[0].embedding).toBe("string");
    expect(fromBase64(b64.json.data[0].embedding)).toEqual(float32(float.json.data[0].embedding));

    const viaSdkFloat = await client(key).embeddings.create({
      model: "local-embedding",
      input,
      encoding_format: "float",
    });
    expect(viaSdkFloat.data[0]!.embedding).toEqual(float.json.data[0].embedding);
    const viaSdkB64 = await client(key).embeddings.create({
      model: "local-embedding",
      input,
      encoding_format: "base64",
    });
    expect(viaSdkB64.data[0]!.embedding).toBe(b64.json.data[0].embedding);

    // Four calls, four entries: one each.
    const entries = await embeddingEntries(key);
    expect(entries).toHaveLength(4);
    expect(new Set(entries.map((e) => e.reference_id)).size).toBe(4);
    for (const e of entries) expect(e.prompt_tokens).toBe(countTextTokens(input));
  });

  it("token ids (one array, or one per input) embed like the text they encode", async () => {
    const { key } = await gw.tenant(100);
    const texts = ["Shipping to Berlin", "Password reset link"];
    const ids = texts.map((t) => tokenizer().encode(t));
    const one = await client(key).embeddings.create({ model: "local-embedding", input: ids[0]! });
    expect(one.data).toHaveLength(1);
    expect(one.data[0]!.embedding).toEqual(Array.from(embedOffline(texts[0]!)));
    expect(one.usage.prompt_tokens).toBe(ids[0]!.length);
    const many = await client(key).embeddings.create({ model: "local-embedding", input: ids });
    expect(many.data.map((d) => d.embedding)).toEqual(texts.map((t) => Array.from(embedOffline(t))));
    expect(many.usage.prompt_tokens).toBe(ids[0]!.length + ids[1]!.length);
    expect(await embeddingEntries(key)).toHaveLength(2);
  });

  it("dimensions folds the vectors to that length, billed once with the dimensions noted", async () => {
    const { key } = await gw.tenant(100);
    const input = ["Invoices are due in thirty days.", "Refunds take five business days."];
    const res = await client(key).embeddings.create({ model: "local-embedding", input, dimensions: 64 });
    expect(res.data.map((d) => d.embedding)).toEqual(input.map((t) => float32(foldVector(embedOffline(t), 64))));
    const entries = await embeddingEntries(key);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      model: "local-embedding",
      metadata: { purpose: "api", inputs: 2, dimensions: 64 },
    });
  });
});

describe("the Vercel AI SDK (@ai-sdk/openai) pointed at the gateway", () => {
  const provider = (key: string) => createOpenAI({ baseURL: `${gw.server.url}/v1`, apiKey: key });

  it("embed on local-embedding and embedMany on an upstream model, each call billed once", async () => {
    const { key } = await gw.tenant(100);
    const text = "Where is my parcel?";
    const one = await embed({ model: provider(key).embedding("local-embedding"), value: text, maxRetries: 0 });
    expect(one.embedding).toEqual(Array.from(embedOffline(text)));
    expect(one.usage.tokens).toBe(countTextTokens(text));
    expect(gw.fake.requests).toHaveLength(0);

    const values = ["alpha beta gamma", "delta epsilon", "zeta"];
    const many = await embedMany({
      model: provider(key).embedding("text-embedding-3-small"),
      values,
      providerOptions: { openai: { dimensions: 12 } },
      maxRetries: 0,
    });
    expect(gw.fake.requests).toHaveLength(1);
    expect(gw.fake.requests[0]!.body).toMatchObject({ model: "text-embedding-3-small", input: values, dimensions: 12 });
    expect(many.embeddings).toHaveLength(3);
    for (const e of many.embeddings) expect(e).toHaveLength(12);
    // The fake counts one token per word.
    expect(many.usage.tokens).toBe(6);

    const entries = await embeddingEntries(key);
    expect(entries.map((e) => [e.model, e.prompt_tokens])).toEqual([
      ["text-embedding-3-small", 6],
      ["local-embedding", countTextTokens(text)],
    ]);
  });
});

describe("an upstream embedding model (OpenAI group, fake upstream)", () => {
  it("goes to <GROUP>_BASE_URL/embeddings with dimensions and user, answers the provider's vectors, bills its usage once", async () => {
    const { key } = await gw.tenant(100);
    const input = ["alpha beta gamma", "delta epsilon"];
    const res = await client(key).embeddings.create({
      model: "text-embedding-3-small",
      input,
      dimensions: 16,
      user: "user-42",
    });
    expect(gw.fake.requests).toHaveLength(1);
    const sent = gw.fake.requests[0]!;
    expect(sent.path).toBe("/v1/embeddings");
    expect(sent.headers.authorization).toBe("Bearer sk-test-openai");
    expect(sent.body).toEqual({
      model: "text-embedding-3-small",
      input,
      dimensions: 16,
      user: "user-42",
      encoding_format: "float",
    });
    // The fake counts one token per word: 5.
    expect(res.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
    expect(res.model).toBe("text-embedding-3-small");
    expect(res.data).toHaveLength(2);
    for (const d of res.data) expect(d.embedding).toHaveLength(16);
    // The provider's vector, not renormalised: the fake counts words into buckets.
    expect(res.data[0]!.embedding.reduce((a, b) => a + b, 0)).toBe(3);

    const entries = await embeddingEntries(key);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      kind: "usage",
      source: "embeddings",
      model: "text-embedding-3-small",
      prompt_tokens: 5,
      metadata: { purpose: "api", inputs: 2, dimensions: 16 },
    });
    expect(entries[0].amount_ot).toBeCloseTo(-(5 * PRICE["text-embedding-3-small"]) / 1e6, 6);
  });

  it("token-id arrays pass through as given", async () => {
    const { key } = await gw.tenant(100);
    const res = await client(key).embeddings.create({
      model: "text-embedding-3-small",
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      encoding_format: "float",
    });
    expect(gw.fake.requests[0]!.body.input).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(res.usage.prompt_tokens).toBe(5);
    expect(await embeddingEntries(key)).toHaveLength(1);
  });

  it("an upstream failure is a 502 in OpenAI's shape, nothing billed and the hold given back", async () => {
    const { key } = await gw.tenant(100);
    gw.fake.queue.push({ kind: "error", status: 500, message: "embedding backend down" });
    const call = client(key).embeddings.create({ model: "text-embedding-3-small", input: "hello" });
    await expect(call).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    await expect(call).rejects.toMatchObject({ status: 502 });
    gw.fake.queue.push({ kind: "error", status: 503, message: "embedding backend down" });
    const raw = await gw.call(key, "POST", "/v1/embeddings", { model: "text-embedding-3-small", input: "hello" });
    expect(raw.status).toBe(502);
    expect(raw.json.error).toMatchObject({ type: "upstream_error", code: "upstream_503", param: null });
    expect(raw.json.error.message).toContain("embedding backend down");
    expect(JSON.stringify(raw.json)).not.toContain("sk-test-openai");
    expect(await embeddingEntries(key)).toHaveLength(0);
    const after = await ledger(key);
    expect(after.balance_ot).toBe(100);
    // The hold was given back: the whole balance can be held again.
    const ok = await gw.call(key, "POST", "/v1/embeddings", { model: "local-embedding", input: "hello" });
    expect(ok.status).toBe(200);
  });
});

describe("refusals", () => {
  it("402 without balance, before any provider call, and nothing is recorded", async () => {
    const { key } = await gw.tenant(0);
    for (const model of ["local-embedding", "text-embedding-3-small"]) {
      const call = client(key).embeddings.create({ model, input: "hello world" });
      await expect(call).rejects.toMatchObject({ status: 402 });
      const raw = await gw.call(key, "POST", "/v1/embeddings", { model, input: "hello world" });
      expect(raw.status).toBe(402);
      expect(raw.json.error.type).toBe("insufficient_balance");
    }
    expect(gw.fake.requests).toHaveLength(0);
    expect((await ledger(key)).data.filter((e) => e.kind !== "grant")).toHaveLength(0);
  });

  it("403 for a key without the chat scope; 401 without a key", async () => {
    const company = await makeCompany(db, { creditsOt: 100 });
    const { secret } = await makeKey(db, { companyId: company.id, scopes: ["view"] });
    const res = await gw.call(secret, "POST", "/v1/embeddings", { model: "local-embedding", input: "hi" });
    expect(res.status).toBe(403);
    expect(res.json.error.type).toBe("permission_error");
    await expect(client(secret).embeddings.create({ model: "local-embedding", input: "hi" })).rejects.toBeInstanceOf(
      OpenAI.PermissionDeniedError,
    );
    const anon = await fetch(`${gw.server.url}/v1/embeddings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local-embedding", input: "hi" }),
    });
    expect(anon.status).toBe(401);
  });

  it("a chat model is a 400 naming `model`; an unknown one a 404; an embedding model cannot chat nor back a profile", async () => {
    const { key } = await gw.tenant(100);
    const chat = await gw.call(key, "POST", "/v1/embeddings", { model: "gpt-4o-mini", input: "hi" });
    expect(chat.status).toBe(400);
    expect(chat.json.error).toMatchObject({
      type: "invalid_request_error",
      code: "model_not_supported",
      param: "model",
    });
    expect(chat.json.error.message).toContain("not an embedding model");
    const unknown = await gw.call(key, "POST", "/v1/embeddings", { model: "embed-9000", input: "hi" });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ type: "not_found_error", code: "model_not_found", param: "model" });
    const completion = await gw.call(key, "POST", "/v1/chat/completions", {
      model: "local-embedding",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(completion.status).toBe(400);
    expect(completion.json.error).toMatchObject({ code: "model_not_supported", param: "model" });
    expect(completion.json.error.message).toContain("/v1/embeddings");
    const profile = await gw.call(key, "POST", "/v1/profiles", { name: "Embedder", model_slug: "local-embedding" });
    expect(profile.status).toBe(400);
    expect(profile.json.error).toMatchObject({ code: "model_not_supported", param: "model_slug" });
    expect(gw.fake.requests).toHaveLength(0);
    expect((await ledger(key)).data.filter((e) => e.kind !== "grant")).toHaveLength(0);
  });

  it("bad input, encoding_format and dimensions are 400s naming the parameter, with no call and no charge", async () => {
    const { key } = await gw.tenant(100);
    const cases: [Record<string, unknown>, string][] = [
      [{ model: "local-embedding" }, "input"],
      [{ model: "local-embedding", input: [] }, "input"],
      [{ model: "local-embedding", input: "" }, "input"],
      [{ model: "local-embedding", input: ["ok", ""] }, "input"],
      [{ model: "local-embedding", input: [[1, 2], []] }, "input"],
      [{ model: "local-embedding", input: { text: "hi" } }, "input"],
      [{ model: "local-embedding", input: ["a", 1] }, "input"],
      [{ model: "local-embedding", input: [1.5, 2] }, "input"],
      [{ model: "local-embedding", input: [-1] }, "input"],
      [{ model: "local-embedding", input: Array.from({ length: 2049 }, () => "x") }, "input"],
      [{ model: "local-embedding", input: Array.from({ length: 8193 }, () => 1) }, "input"],
      [{ model: "local-embedding", input: "word ".repeat(9000) }, "input"],
      [{ model: "local-embedding", input: [[999_999]] }, "input"],
      [{ model: "local-embedding", input: "hi", encoding_format: "hex" }, "encoding_format"],
      [{ model: "local-embedding", input: "hi", dimensions: 385 }, "dimensions"],
      [{ model: "text-embedding-3-small", input: "hi", dimensions: 4096 }, "dimensions"],
      [{ model: "text-embedding-3-small", input: "hi", dimensions: 0 }, "dimensions"],
      [{ model: "text-embedding-ada-002", input: "hi", dimensions: 256 }, "dimensions"],
      [{ model: "local-embedding", input: "hi", user: 7 }, "user"],
      [{ model: "local-embedding", input: "hi", stream: true }, "stream"],
      [{ input: "hi" }, "model"],
    ];
    for (const [body, param] of cases) {
      const res = await gw.call(key, "POST", "/v1/embeddings", body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json.error, JSON.stringify(body).slice(0, 80)).toMatchObject({
        type: "invalid_request_error",
        // An item is named by its path (`input.0`), as for any field.
        param: expect.stringMatching(new RegExp(`^${param}(\\.|$)`)),
      });
    }
    expect(gw.fake.requests).toHaveLength(0);
    expect((await ledger(key)).data.filter((e) => e.kind !== "grant")).toHaveLength(0);
  });
});

it("GET /v1/models lists the embedding models with their type and dimensions", async () => {
  const { key } = await gw.tenant(100);
  const models = new Map<string, any>();
  for await (const m of client(key).models.list()) models.set(m.id, m);
  expect(models.get("local-embedding")).toMatchObject({
    object: "model",
    owned_by: "local",
    type: "embedding",
    dimensions: 384,
    supports_dimensions: true,
    pricing: { input: 10, output: 0 },
  });
  expect(models.get("text-embedding-3-small")).toMatchObject({
    owned_by: "openai",
    type: "embedding",
    dimensions: 1536,
    supports_dimensions: true,
  });
  expect(models.get("local-chat-latest")).toMatchObject({ type: "chat" });
});
