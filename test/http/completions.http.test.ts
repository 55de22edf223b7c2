import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey } from "../support/factories";
import { companies, messages, runs, threads } from "@/db/schema";
import { setModelOverride } from "@/lib/models";
import { countTextTokens } from "@/lib/providers/tokens";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * Chat completions end to end: the production server with every provider group pointed at one fake upstream
 * on loopback. Each test makes its own company and key; the fake's recordings and queue are reset
 * before each test, and tests run one after another.
 */
const UPSTREAM_KEYS = {
  openai: "sk-upstream-secret-123",
  openrouter: "sk-or-upstream-secret-456",
  anthropic: "sk-ant-upstream-secret-789",
};
/** The fake reports these counts for every successful call (cached input included in prompt). */
const PROMPT = 1234;
const CACHED = 1000;

let fake: FakeUpstream;
let server: RunningServer;

beforeAll(async () => {
  fake = await startFakeUpstream({
    usage: (_body, reply) => ({
      prompt: PROMPT,
      completion: reply.split(/\s+/).filter(Boolean).length,
      cached: CACHED,
    }),
    toolCall: (body) => {
      const first = body.tools[0];
      return { name: first.function?.name ?? first.name, arguments: { city: "Paris" } };
    },
  });
  server = await startNextServer({
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    OPENAI_BASE_URL: fake.openaiBase,
    OPENAI_API_KEY: UPSTREAM_KEYS.openai,
    OPENROUTER_BASE_URL: fake.openaiBase,
    OPENROUTER_API_KEY: UPSTREAM_KEYS.openrouter,
    ANTHROPIC_BASE_URL: fake.anthropicBase,
    ANTHROPIC_API_KEY: UPSTREAM_KEYS.anthropic,
    GEMINI_API_KEY: "",
    UPSTREAM_RETRIES: "2",
    UPSTREAM_RETRY_BASE_MS: "10",
    UPSTREAM_FIRST_BYTE_TIMEOUT_MS: "800",
    LOG_LEVEL: "error",
  });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

beforeEach(() => {
  fake.requests.length = 0;
  fake.queue.length = 0;
});

async function newTenant(creditsOt = 100) {
  const company = await makeCompany(db, { creditsOt });
  const { secret } = await makeKey(db, { companyId: company.id });
  return { company, key: secret };
}

const user = (content: string) => ({ role: "user", content });

function post(key: string, body: unknown, init: { signal?: AbortSignal; raw?: string } = {}) {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: init.raw ?? JSON.stringify(body),
    signal: init.signal,
  });
}

async function getJson(key: string, path: string) {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return res.json();
}

/** Data frames of an SSE body, in order (`[DONE]` kept as the string). */
function frames(text: string): any[] {
  return text
    .split("\n\n")
    .filter((f) => f.startsWith("data: "))
    .map((f) => f.slice("data: ".length))
    .map((d) => (d === "[DONE]" ? d : JSON.parse(d)));
}

const streamedText = (fs: any[]) =>
  fs
    .filter((f) => f !== "[DONE]" && f.choices?.[0]?.delta?.content)
    .map((f) => f.choices[0].delta.content)
    .join("");

async function completionEntries(key: string) {
  const ledger = await getJson(key, "/v1/usage");
  return (ledger.data as any[]).filter((e) => e.kind === "completion");
}

async function pricesOf(key: string, slug: string) {
  const list = await getJson(key, "/v1/models");
  const model = (list.data as any[]).find((m) => m.id === slug);
  expect(model, `${slug} in /v1/models`).toBeDefined();
  return model.pricing as { input: number; cached_input: number; output: number };
}

/** O₮ for a usage at listed prices (O₮ per 1M tokens), cached tokens inside prompt_tokens. */
const costOt = (
  u: { prompt_tokens: number; completion_tokens: number; cached: number },
  p: { input: number; cached_input: number; output: number },
) =>
  Math.round((u.prompt_tokens - u.cached) * p.input + u.cached * p.cached_input + u.completion_tokens * p.output) /
  1_000_000;

async function until<T>(fn: () => Promise<T | undefined>, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("model resolution", () => {
  it("a disabled claude- slug is 400 naming its or- replacement, without calling upstream", async () => {
    const { key } = await newTenant();
    const res = await post(key, { model: "claude-haiku-4-5", messages: [user("hi")] });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toMatchObject({ type: "invalid_request_error", code: "model_disabled", param: "model" });
    expect(body.error.message).toContain("or-claude-haiku-4-5");
    expect(fake.requests).toHaveLength(0);
  });

  it("an unknown slug is 404 model_not_found", async () => {
    const { key } = await newTenant();
    const res = await post(key, { model: "gpt-17-ultra", messages: [user("hi")] });
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatchObject({
      type: "not_found_error",
      code: "model_not_found",
      param: "model",
    });
  });

  it("a group without a key is 400 naming the variable to set", async () => {
    const { key } = await newTenant();
    const res = await post(key, { model: "gemini-2.5-flash", messages: [user("hi")] });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toMatchObject({ type: "invalid_request_error", code: "provider_not_configured" });
    expect(body.error.message).toContain("GEMINI_API_KEY");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("retries, timeouts and fallbacks", () => {
  it("retries an upstream 500 then answers 502 upstream_error with the provider's status and message, never its key", async () => {
    const { key } = await newTenant();
    const message = `internal failure (key ${UPSTREAM_KEYS.openai} rejected)`;
    fake.queue.push(...Array.from({ length: 3 }, () => ({ kind: "error" as const, status: 500, message })));
    const res = await post(key, { model: "gpt-4o-mini", messages: [user("hi")] });
    expect(res.status).toBe(502);
    const text = await res.text();
    const body = JSON.parse(text);
    expect(body.error).toMatchObject({ type: "upstream_error", code: "upstream_500", param: null });
    expect(body.error.message).toContain("500");
    expect(body.error.message).toContain("internal failure");
    expect(text).not.toContain(UPSTREAM_KEYS.openai);
    expect(text).not.toContain(key);
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests.map((r) => r.body.model)).toEqual(["gpt-4o-mini", "gpt-4o-mini", "gpt-4o-mini"]);
    // Nothing reached the client: nothing is billed.
    expect(await completionEntries(key)).toHaveLength(0);
  });

  it("a 429 then a success is a 200", async () => {
    const { key } = await newTenant();
    fake.queue.push({ kind: "error", status: 429, message: "slow down", headers: { "retry-after": "0" } });
    const res = await post(key, { model: "gpt-4o-mini", messages: [user("hi")] });
    expect(res.status).toBe(200);
    expect(fake.requests).toHaveLength(2);
    expect((await res.json()).choices[0].message.content).toBe("Echo from gpt-4o-mini: hi");
  });

  it("a first-byte timeout (slow headers, or no answer at all) is retried, then 502", async () => {
    const { key } = await newTenant();
    fake.queue.push({ kind: "delay", ms: 1500 }, { kind: "hang" }, { kind: "delay", ms: 1500 });
    const started = Date.now();
    const res = await post(key, { model: "gpt-4o-mini", messages: [user("hi")] });
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.error).toMatchObject({ type: "upstream_error", code: "upstream_unavailable" });
    expect(body.error.message).toContain("timed out");
    expect(fake.requests).toHaveLength(3);
    // Three waits of the 800 ms first-byte timeout, not the upstream's 1.5 s.
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("an or- slug whose primary upstream id keeps failing falls back to its declared fallback", async () => {
    const { key } = await newTenant();
    fake.queue.push(
      ...Array.from({ length: 3 }, () => ({ kind: "error" as const, status: 503, message: "overloaded" })),
    );
    const res = await post(key, { model: "or-gpt-4o-mini", messages: [user("hi")] });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.model).toBe("or-gpt-4o-mini");
    expect(body.choices[0].message.content).toBe("Echo from openai/gpt-4.1-mini: hi");
    expect(fake.requests.map((r) => r.body.model)).toEqual([
      "openai/gpt-4o-mini",
      "openai/gpt-4o-mini",
      "openai/gpt-4o-mini",
      "openai/gpt-4.1-mini",
    ]);
    expect(fake.requests.every((r) => r.headers.authorization === `Bearer ${UPSTREAM_KEYS.openrouter}`)).toBe(true);
  });

  it("a non-retryable failure of the primary (404) moves to the fallback at once", async () => {
    const { key } = await newTenant();
    fake.queue.push({ kind: "error", status: 404, message: "no such model" });
    const res = await post(key, { model: "or-gpt-4o-mini", messages: [user("hi")] });
    expect(res.status).toBe(200);
    expect(fake.requests.map((r) => r.body.model)).toEqual(["openai/gpt-4o-mini", "openai/gpt-4.1-mini"]);
  });

  it("a request the upstream refuses (400) is a 502 at once: no retry, no fallback", async () => {
    const { key } = await newTenant();
    fake.queue.push({ kind: "error", status: 400, message: "Invalid value for 'logit_bias'" });
    const res = await post(key, { model: "or-gpt-4o-mini", messages: [user("hi")] });
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.error).toMatchObject({ type: "upstream_error", code: "upstream_400" });
    expect(body.error.message).toContain("Invalid value for 'logit_bias'");
    expect(fake.requests.map((r) => r.body.model)).toEqual(["openai/gpt-4o-mini"]);
  });

  it("honours the upstream's Retry-After, and moves to the fallback when it asks for too long", async () => {
    const { key } = await newTenant();
    fake.queue.push({ kind: "error", status: 429, message: "slow down", headers: { "retry-after": "1" } });
    let started = Date.now();
    expect((await post(key, { model: "gpt-4o-mini", messages: [user("hi")] })).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.requests).toHaveLength(2);

    fake.requests.length = 0;
    fake.queue.push({ kind: "error", status: 503, message: "maintenance", headers: { "retry-after": "3600" } });
    started = Date.now();
    expect((await post(key, { model: "or-gpt-4o-mini", messages: [user("hi")] })).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(900);
    expect(fake.requests.map((r) => r.body.model)).toEqual(["openai/gpt-4o-mini", "openai/gpt-4.1-mini"]);
  });
});

describe("streaming", () => {
  it("passes chunks through with the requested slug as model, a usage frame on request, and ends with [DONE]", async () => {
    const { key } = await newTenant();
    const res = await post(key, {
      model: "or-gpt-4o-mini",
      messages: [user("stream me please")],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const fs = frames(await res.text());
    expect(fs.at(-1)).toBe("[DONE]");
    const chunks = fs.slice(0, -1);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "or-gpt-4o-mini")).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0].choices[0].delta.role).toBe("assistant");
    expect(streamedText(chunks)).toBe("Echo from openai/gpt-4o-mini: stream me please");
    expect(chunks.filter((c) => c.choices[0]?.delta?.content).length).toBeGreaterThan(1);
    expect(chunks.filter((c) => c.choices[0]?.finish_reason)).toHaveLength(1);
    const last = chunks.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({
      prompt_tokens: PROMPT,
      completion_tokens: 6,
      total_tokens: PROMPT + 6,
      prompt_tokens_details: { cached_tokens: CACHED },
    });
    expect(fake.requests[0]!.body.stream).toBe(true);
  });

  it("without include_usage no usage frame is sent", async () => {
    const { key } = await newTenant();
    const res = await post(key, { model: "gpt-4o-mini", messages: [user("hi there")], stream: true });
    const fs = frames(await res.text());
    expect(fs.at(-1)).toBe("[DONE]");
    expect(fs.slice(0, -1).every((c) => c.choices.length === 1 && c.usage === undefined)).toBe(true);
  });

  it("a failure after the first byte ends the stream with an error frame and no [DONE]", async () => {
    const { key } = await newTenant();
    fake.queue.push({ kind: "break-stream", chunks: 3, intervalMs: 50 });
    const res = await post(key, { model: "gpt-4o-mini", messages: [user("one two three four five")], stream: true });
    expect(res.status).toBe(200);
    const raw = await res.text();
    expect(raw).not.toContain("[DONE]");
    const fs = frames(raw);
    expect(streamedText(fs)).toBe("Echo from gpt-4o-mini: ");
    expect(fs.at(-1).error).toMatchObject({ type: "upstream_error" });
    // Not retried: bytes had reached the client.
    expect(fake.requests).toHaveLength(1);
    // Billed for the part that was delivered, counted with the tokenizer (the provider sent no usage).
    const [entry] = await completionEntries(key);
    expect(entry.completion_tokens).toBe(countTextTokens("Echo from gpt-4o-mini: "));
    expect(entry.metadata.status).toBe("failed");
  });

  it("a 500 before the first byte of a streaming call is a plain 502 JSON response", async () => {
    const { key } = await newTenant();
    fake.queue.push(...Array.from({ length: 3 }, () => ({ kind: "error" as const, status: 500 })));
    const res = await post(key, { model: "gpt-4o-mini", messages: [user("hi")], stream: true });
    expect(res.status).toBe(502);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect((await res.json()).error).toMatchObject({ type: "upstream_error", code: "upstream_500" });
    expect(fake.requests).toHaveLength(3);
  });

  it("a stream that breaks before its first chunk is retried like a failed request", async () => {
    const { key } = await newTenant();
    fake.queue.push({ kind: "break-stream", chunks: 0, intervalMs: 50 });
    const res = await post(key, { model: "gpt-4o-mini", messages: [user("hi")], stream: true });
    expect(res.status).toBe(200);
    const fs = frames(await res.text());
    expect(fs.at(-1)).toBe("[DONE]");
    expect(streamedText(fs)).toBe("Echo from gpt-4o-mini: hi");
    expect(fake.requests).toHaveLength(2);
  });

  it("passes each upstream chunk on as it arrives, never holding the answer back", async () => {
    const { key } = await newTenant();
    fake.queue.push({ kind: "slow-stream", chunks: 6, intervalMs: 150 });
    const started = Date.now();
    const res = await post(key, {
      model: "gpt-4o-mini",
      messages: [user("one two three four five six")],
      stream: true,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const arrivals: number[] = [];
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const piece = decoder.decode(value, { stream: true });
      text += piece;
      for (const _ of piece.match(/"content":"[^"]+"/g) ?? []) arrivals.push(Date.now() - started);
    }
    expect(frames(text).at(-1)).toBe("[DONE]");
    expect(arrivals).toHaveLength(6);
    // Six chunks 150 ms apart upstream reach the client spread out the same way, not in one burst.
    for (let i = 1; i < arrivals.length; i++) expect(arrivals[i]! - arrivals[i - 1]!).toBeGreaterThan(75);
    expect(arrivals[5]! - arrivals[0]!).toBeGreaterThan(600);
  });

  it("a client that disconnects aborts the upstream call at once and is billed for the partial answer", async () => {
    const { company, key } = await newTenant();
    fake.queue.push({ kind: "slow-stream", chunks: 50, intervalMs: 100 });
    const client = new AbortController();
    const res = await post(
      key,
      { model: "gpt-4o-mini", messages: [user("tell me a long story")], stream: true },
      { signal: client.signal },
    );
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while ((seen.match(/"content":"[^"]+"/g) ?? []).length < 3) {
      const { value, done } = await reader.read();
      if (done) throw new Error("stream ended early");
      seen += decoder.decode(value, { stream: true });
    }
    const clientAbortTime = Date.now();
    client.abort();

    const upstream = fake.requests[0]!;
    const abortedAt = await until(async () => upstream.abortedAt, 1500);
    expect(abortedAt - clientAbortTime).toBeLessThan(1000);

    // What the full answer would have cost: 50 pieces of the fake's reply.
    const pieces = "Echo from gpt-4o-mini: tell me a long story".match(/\S+\s*/g)!;
    const fullTokens = countTextTokens(Array.from({ length: 50 }, (_, i) => pieces[i % pieces.length]).join(""));
    const entry = await until(async () => (await completionEntries(key))[0]);
    expect(entry.model).toBe("gpt-4o-mini");
    expect(entry.completion_tokens).toBeGreaterThan(0);
    expect(entry.completion_tokens).toBeLessThan(fullTokens);
    expect(entry.amount_ot).toBeLessThan(0);
    expect(await completionEntries(key)).toHaveLength(1);

    const [run] = await db.select().from(runs).where(eq(runs.companyId, company.id));
    expect(run).toMatchObject({
      status: "cancelled",
      stream: true,
      model: "gpt-4o-mini",
      completionTokens: entry.completion_tokens,
    });
    expect(run!.error).toMatchObject({ code: "client_disconnected" });
    const [thread] = await db.select().from(threads).where(eq(threads.id, run!.threadId));
    expect(thread!.source).toBe("completions");
    const stored = await db.select().from(messages).where(eq(messages.threadId, run!.threadId)).orderBy(messages.seq);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(String(stored[1]!.content)).toMatch(/^Echo from/);
  });
});

describe("billing", () => {
  it("over the key's rate limit: 429 before any upstream call, even for a body that would be a 400; no credit left held", async () => {
    const company = await makeCompany(db, { creditsOt: 100 });
    const { secret: key } = await makeKey(db, { companyId: company.id, rateLimitPerMinute: 1 });
    expect((await post(key, { model: "gpt-4o-mini", messages: [user("hi")] })).status).toBe(200);
    for (const stream of [false, true]) {
      const res = await post(key, { model: "gpt-4o-mini", messages: [user("hi")], stream });
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
      expect((await res.json()).error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
    }
    const bad = await post(key, { model: "gpt-4o-mini", messages: "not a list" });
    expect(bad.status).toBe(429);
    expect(fake.requests).toHaveLength(1);
    const co = await until(async () => {
      const [row] = await db.select().from(companies).where(eq(companies.id, company.id));
      return row!.reservedMicro === 0 ? row : undefined;
    }, 6000);
    // Read the ledger with another key of the company: this one is out of budget.
    const { secret: reader } = await makeKey(db, { companyId: company.id });
    expect(await completionEntries(reader)).toHaveLength(1);
    expect(co.balanceMicro).toBeLessThan(100_000_000);
  });

  it("a client that gives up before the model answered: upstream aborted, run stored as cancelled and billed its prompt, no credit left held once idle", async () => {
    const { company, key } = await newTenant();
    for (const stream of [false, true]) {
      fake.queue.push({ kind: "delay", ms: 700 });
      const client = new AbortController();
      const pending = post(key, { model: "gpt-4o-mini", messages: [user("hi")], stream }, { signal: client.signal });
      const upstream = await until(async () => fake.requests[stream ? 1 : 0]);
      const abortTime = Date.now();
      client.abort();
      await expect(pending).rejects.toThrow();
      expect((await until(async () => upstream.abortedAt)) - abortTime).toBeLessThan(1000);
    }
    const stored = await until(async () => {
      const rows = await db.select().from(runs).where(eq(runs.companyId, company.id));
      return rows.length === 2 ? rows : undefined;
    });
    expect(stored.map((r) => [r.status, r.completionTokens])).toEqual([
      ["cancelled", 0],
      ["cancelled", 0],
    ]);
    // The calls' holds went back to the server's credit lease, which is released once idle (LEASE_IDLE_MS).
    const co = await until(async () => {
      const [row] = await db.select().from(companies).where(eq(companies.id, company.id));
      return row!.reservedMicro === 0 ? row : undefined;
    }, 6000);
    // Nothing was generated, but the provider had the prompt: each call is billed its prompt, once.
    const entries = await completionEntries(key);
    expect(entries).toHaveLength(2);
    for (const e of entries) {
      expect(e.prompt_tokens).toBeGreaterThan(0);
      expect(e.completion_tokens).toBe(0);
      expect(e.amount_ot).toBeLessThan(0);
    }
    expect(co.balanceMicro).toBe(100_000_000 + Math.round(entries.reduce((sum, e) => sum + e.amount_ot, 0) * 1e6));
  });

  it("at zero balance: 402, no upstream request, nothing billed", async () => {
    const { key } = await newTenant(0);
    for (const stream of [false, true]) {
      const res = await post(key, { model: "gpt-4o-mini", messages: [user("hi")], stream });
      expect(res.status).toBe(402);
      expect((await res.json()).error).toMatchObject({ type: "insufficient_balance" });
    }
    expect(fake.requests).toHaveLength(0);
    const ledger = await getJson(key, "/v1/usage");
    expect(ledger.data).toEqual([]);
    expect(ledger.balance_ot).toBe(0);
    expect(await getJson(key, "/v1/threads?source=completions")).toMatchObject({ data: [] });
  });

  it("ledger rows match the usage returned at the listed prices, cached tokens at the cached price; streamed bills the same", async () => {
    const { key } = await newTenant(100);
    const prices = await pricesOf(key, "gpt-4o-mini");
    const ask = { model: "gpt-4o-mini", messages: [user("what does this cost")] };

    const res = await post(key, ask);
    expect(res.status).toBe(200);
    const completion = await res.json();
    expect(completion).toMatchObject({ object: "chat.completion", model: "gpt-4o-mini" });
    expect(completion.id).toMatch(/^chatcmpl-/);
    const usage = completion.usage;
    expect(usage).toMatchObject({
      prompt_tokens: PROMPT,
      completion_tokens: 7,
      total_tokens: PROMPT + 7,
      prompt_tokens_details: { cached_tokens: CACHED },
    });

    const [entry] = await completionEntries(key);
    const expected = costOt({ ...usage, cached: CACHED }, prices);
    expect(expected).toBeGreaterThan(0);
    expect(entry).toMatchObject({
      kind: "completion",
      source: "completions",
      model: "gpt-4o-mini",
      prompt_tokens: PROMPT,
      completion_tokens: 7,
      reference_id: completion.id,
    });
    expect(entry.amount_ot).toBeCloseTo(-expected, 6);
    expect(entry.balance_after_ot).toBeCloseTo(100 - expected, 6);
    expect(entry.metadata).toMatchObject({ cached_tokens: CACHED });

    const streamed = await post(key, { ...ask, stream: true, stream_options: { include_usage: true } });
    const fs = frames(await streamed.text());
    expect(fs.at(-2).usage).toEqual(usage);
    const entries = await completionEntries(key);
    expect(entries).toHaveLength(2);
    expect(entries[0].reference_id).toBe(fs[0].id);
    expect(entries[0].amount_ot).toBe(entry.amount_ot);
    expect(entries[0].balance_after_ot).toBeCloseTo(100 - 2 * expected, 6);
    expect((await getJson(key, "/v1/usage")).balance_ot).toBeCloseTo(100 - 2 * expected, 6);
  });
});

describe("the Anthropic adapter", () => {
  const tools = [
    {
      type: "function",
      function: {
        name: "get_weather",
        description: "Weather by city",
        parameters: { type: "object", properties: { city: { type: "string" } } },
      },
    },
  ];

  async function anthropicTenant() {
    const tenant = await newTenant();
    await setModelOverride(db, { companyId: tenant.company.id, slug: "claude-haiku-4-5", input: { enabled: true } });
    return tenant;
  }

  function expectAnthropicCall(i: number) {
    const r = fake.requests[i]!;
    expect(r.path).toBe("/v1/messages");
    expect(r.headers["x-api-key"]).toBe(UPSTREAM_KEYS.anthropic);
    expect(r.headers["anthropic-version"]).toBe("2023-06-01");
    expect(r.headers.authorization).toBeUndefined();
    expect(r.body.model).toBe("claude-haiku-4-5");
    expect(r.body.system).toBe("You are terse.");
    expect(r.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hello claude" }] }]);
    expect(r.body.max_tokens).toBeGreaterThan(0);
    return r;
  }

  const ask = {
    model: "claude-haiku-4-5",
    messages: [{ role: "system", content: "You are terse." }, user("hello claude")],
  };

  it("answers a non-streaming call, usage with cache reads inside prompt_tokens", async () => {
    const { key } = await anthropicTenant();
    const res = await post(key, ask);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.model).toBe("claude-haiku-4-5");
    expect(body.choices[0]).toMatchObject({
      message: { role: "assistant", content: "Echo from claude-haiku-4-5: hello claude" },
      finish_reason: "stop",
    });
    expect(body.usage).toMatchObject({
      prompt_tokens: PROMPT,
      completion_tokens: 5,
      prompt_tokens_details: { cached_tokens: CACHED },
    });
    expectAnthropicCall(0);
    expect(fake.requests[0]!.body.stream).toBeUndefined();
    const prices = await pricesOf(key, "claude-haiku-4-5");
    const [entry] = await completionEntries(key);
    expect(entry.amount_ot).toBeCloseTo(-costOt({ ...body.usage, cached: CACHED }, prices), 6);
  });

  it("streams", async () => {
    const { key } = await anthropicTenant();
    const res = await post(key, { ...ask, stream: true, stream_options: { include_usage: true } });
    expect(res.status).toBe(200);
    const fs = frames(await res.text());
    expect(fs.at(-1)).toBe("[DONE]");
    expect(fs.slice(0, -1).every((c) => c.model === "claude-haiku-4-5")).toBe(true);
    expect(streamedText(fs)).toBe("Echo from claude-haiku-4-5: hello claude");
    expect(fs.find((c) => c.choices?.[0]?.finish_reason)?.choices[0].finish_reason).toBe("stop");
    expect(fs.at(-2).usage).toMatchObject({
      prompt_tokens: PROMPT,
      completion_tokens: 5,
      prompt_tokens_details: { cached_tokens: CACHED },
    });
    expect(expectAnthropicCall(0).body.stream).toBe(true);
  });

  it("retries its errors and reports them as 502 with Anthropic's message, never the key", async () => {
    const { key } = await anthropicTenant();
    fake.queue.push(
      ...Array.from({ length: 3 }, () => ({
        kind: "error" as const,
        status: 529,
        message: `Overloaded (${UPSTREAM_KEYS.anthropic})`,
      })),
    );
    const res = await post(key, ask);
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(JSON.parse(text).error).toMatchObject({ type: "upstream_error", code: "upstream_529" });
    expect(text).toContain("Overloaded");
    expect(text).not.toContain(UPSTREAM_KEYS.anthropic);
    expect(fake.requests).toHaveLength(3);
  });

  it("translates tools both ways, streaming or not", async () => {
    const { key } = await anthropicTenant();
    const res = await post(key, { ...ask, tools, tool_choice: "required" });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.choices[0].finish_reason).toBe("tool_calls");
    expect(body.choices[0].message.content).toBeNull();
    expect(body.choices[0].message.tool_calls).toEqual([
      { id: "toolu_fake1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
    ]);
    const sent = expectAnthropicCall(0).body;
    expect(sent.tools).toEqual([
      { name: "get_weather", description: "Weather by city", input_schema: tools[0]!.function.parameters },
    ]);
    expect(sent.tool_choice).toEqual({ type: "any" });

    const streamed = await post(key, { ...ask, tools, stream: true });
    const fs = frames(await streamed.text());
    expect(fs.at(-1)).toBe("[DONE]");
    const deltas = fs.flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({
      index: 0,
      id: "toolu_fake1",
      type: "function",
      function: { name: "get_weather" },
    });
    expect(deltas.map((d: any) => d.function?.arguments ?? "").join("")).toBe('{"city":"Paris"}');
    expect(fs.find((c) => c.choices?.[0]?.finish_reason)?.choices[0].finish_reason).toBe("tool_calls");
  });
});

describe("what reaches an OpenAI-format upstream", () => {
  it("passes standard fields unchanged, one system message first, and the upstream model id", async () => {
    const { key } = await newTenant();
    const tools = [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } }];
    const params = {
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 64,
      stop: ["END"],
      seed: 42,
      user: "end-user-7",
      response_format: { type: "json_object" },
      parallel_tool_calls: false,
    };
    const res = await post(key, {
      model: "or-gpt-4o-mini",
      messages: [
        { role: "system", content: "Rule one." },
        user("hi"),
        { role: "assistant", content: "hello" },
        { role: "system", content: "Rule two." },
        user("again"),
      ],
      tools,
      tool_choice: "auto",
      ...params,
    });
    expect(res.status).toBe(200);
    const sent = fake.requests[0]!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEYS.openrouter}`);
    expect(sent.body).toMatchObject({
      ...params,
      model: "openai/gpt-4o-mini",
      tools,
      tool_choice: "auto",
      stream: false,
    });
    expect(sent.body.messages).toEqual([
      { role: "system", content: "Rule one.\n\nRule two." },
      user("hi"),
      { role: "assistant", content: "hello" },
      user("again"),
    ]);
    const body = await res.json();
    expect(body.model).toBe("or-gpt-4o-mini");
    expect(body.choices[0].message.tool_calls[0].function).toEqual({ name: "lookup", arguments: '{"city":"Paris"}' });
  });

  it("images reach the upstream as given", async () => {
    const { key } = await newTenant();
    const content = [
      { type: "text", text: "what is this" },
      { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "low" } },
    ];
    const res = await post(key, { model: "gpt-4o-mini", messages: [{ role: "user", content }] });
    expect(res.status).toBe(200);
    expect(fake.requests[0]!.body.messages).toEqual([{ role: "user", content }]);
  });
});

describe("threads and validation", () => {
  it("every completion leaves a throwaway thread with source completions", async () => {
    const { key } = await newTenant();
    for (const q of ["one", "two"])
      expect((await post(key, { model: "gpt-4o-mini", messages: [user(q)] })).status).toBe(200);
    const list = await getJson(key, "/v1/threads?source=completions");
    expect(list.object).toBe("list");
    expect(list.data).toHaveLength(2);
    expect(
      list.data.every((t: any) => t.object === "thread" && t.source === "completions" && t.id.startsWith("thread_")),
    ).toBe(true);
    expect((await getJson(key, "/v1/threads?source=api")).data).toEqual([]);
  });

  // Images for a model without image input are turned into text: test/http/multimodal.http.test.ts.
  it("tools for a model without tool support are a 400 naming the field", async () => {
    const { key } = await newTenant();
    const tools = [{ type: "function", function: { name: "lookup" } }];
    const noTools = await post(key, { model: "gpt-5-chat-latest", messages: [user("hi")], tools });
    expect(noTools.status).toBe(400);
    expect((await noTools.json()).error).toMatchObject({ code: "tools_not_supported", param: "tools" });
    expect(fake.requests).toHaveLength(0);
  });

  it.each([
    ["malformed JSON", { raw: '{"model": "gpt-4o-mini", "messages": [' }, null],
    ["an unknown field", { body: { model: "gpt-4o-mini", messages: [user("hi")], frobnicate: 1 } }, "frobnicate"],
    ["empty messages", { body: { model: "gpt-4o-mini", messages: [] } }, "messages"],
    [
      "an http:// image URL",
      {
        body: {
          model: "gpt-4o-mini",
          messages: [
            { role: "user", content: [{ type: "image_url", image_url: { url: "http://example.com/a.png" } }] },
          ],
        },
      },
      "messages.0.content.0.image_url.url",
    ],
    ["n=2", { body: { model: "gpt-4o-mini", messages: [user("hi")], n: 2 } }, "n"],
  ])("%s is a 400 with param", async (_name, input: { raw?: string; body?: unknown }, param) => {
    const { key } = await newTenant();
    const res = await post(key, input.body, { raw: input.raw });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error).toHaveProperty("param", param);
    expect(fake.requests).toHaveLength(0);
  });
});
