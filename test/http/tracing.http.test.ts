import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { webhookEvents } from "@/db/schema";
import { makeWebhookAgent } from "../support/factories";
import { sseData, useGateway, type Gateway } from "../support/gateway";
import { upload, waitForDocument } from "../support/knowledge";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver";

/**
 * OpenTelemetry traces (CONTRACT 10) exported to an OTLP/HTTP receiver inside the test, in both
 * encodings: a server span per request continuing an incoming `traceparent`, a span per run step
 * under it matching the steps API, and a GenAI client span per upstream call under its step.
 */
const SERVER = 2;
const CLIENT = 3;

/** The model calls the first tool offered until a tool result is in the conversation. */
const toolCall = (body: any) =>
  body.messages.some((m: { role: string }) => m.role === "tool")
    ? null
    : { name: body.tools[0].function.name, arguments: { a: 2, b: 40 } };

/** A gateway exporting to its own receiver; the receiver's URL goes into the env before the server starts. */
function tracedGateway(env: Record<string, string>): { gw: Gateway; otlp: () => OtlpReceiver } {
  let receiver: OtlpReceiver;
  const gwEnv: Record<string, string> = { OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_SERVICE_NAME: "gw-under-test", ...env };
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    gwEnv.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  });
  const gw = useGateway({ fake: { toolCall }, env: gwEnv });
  afterAll(async () => {
    await receiver?.close();
  });
  return { gw, otlp: () => receiver };
}

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const inTrace = (spans: ReceivedSpan[], traceId: string) => spans.filter((s) => s.traceId === traceId);
const CONTENT_KEYS = ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"];

async function addTool(gw: Gateway, key: string) {
  const tool = await gw.call(key, "POST", "/v1/tools", {
    name: "add",
    description: "adds two numbers",
    json_schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    python_code: "def add(a, b):\n    return a + b\n",
  });
  expect(tool.status, JSON.stringify(tool.json)).toBe(201);
  const profile = await gw.call(key, "POST", "/v1/profiles", {
    name: "adder",
    allowed_tool_names: ["add"],
    use_tools: true,
  });
  expect(profile.status, JSON.stringify(profile.json)).toBe(201);
  return profile.json.id as string;
}

describe("traces over http/protobuf (the default), message content off", () => {
  const { gw, otlp } = tracedGateway({ EMBEDDING_MODEL: "openai:text-embedding-3-small", EMBEDDING_PRICE_PER_M: "" });

  it("a run with a tool call: server span continuing traceparent, step spans as the steps API, client spans under their steps", async () => {
    const { key } = await gw.tenant();
    const profileId = await addTool(gw, key);
    const threadId = await gw.thread(key, [{ role: "user", content: "what is 2 + 40?" }]);
    const traceId = hex(16);
    const parentId = hex(8);
    const res = await fetch(`${gw.server.url}/v1/threads/${threadId}/runs`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        traceparent: `00-${traceId}-${parentId}-01`,
        "user-agent": "tracing-test/1.0",
      },
      body: JSON.stringify({ model: "gpt-4o-mini", profile_ids: [profileId] }),
    });
    const run = await res.json();
    expect(res.status, JSON.stringify(run)).toBe(200);
    expect(run.tool_calls).toEqual([{ name: "add", args: { a: 2, b: 40 }, result: 42 }]);
    const steps = (await gw.call(key, "GET", `/v1/threads/${threadId}/runs/${run.id}/steps?limit=100`)).json.data as {
      type: string;
      detail: Record<string, unknown>;
    }[];
    expect(steps.map((s) => s.type)).toContain("tool_call");

    const spans = await otlp().waitFor((all) => {
      const t = inTrace(all, traceId);
      const server = t.find((s) => s.kind === SERVER);
      const clients = t.filter((s) => s.kind === CLIENT);
      return server && clients.length === 2 && t.filter((s) => s.name.startsWith("step ")).length === steps.length
        ? t
        : undefined;
    });
    expect(otlp().contentTypes.every((t) => t === "application/x-protobuf")).toBe(true);

    const server = spans.find((s) => s.kind === SERVER)!;
    expect(server.service).toBe("gw-under-test");
    expect(server.parentSpanId).toBe(parentId);
    expect(server.name).toBe("POST /v1/threads/[threadId]/runs");
    expect(server.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/v1/threads/[threadId]/runs",
      "url.path": `/v1/threads/${threadId}/runs`,
      "http.response.status_code": 200,
      "server.address": "127.0.0.1",
      "server.port": gw.server.port,
      "user_agent.original": "tracing-test/1.0",
    });
    // Next.js's own spans are not exported (they would duplicate the server span).
    expect(spans.filter((s) => s.attributes["next.span_type"] !== undefined)).toEqual([]);

    // One span per step, children of the server span, in the steps API's order and types.
    const stepSpans = spans
      .filter((s) => s.name.startsWith("step "))
      .sort((a, b) => Number(a.attributes["cockpit.step.index"]) - Number(b.attributes["cockpit.step.index"]));
    expect(stepSpans.map((s) => s.attributes["cockpit.step.type"])).toEqual(steps.map((s) => s.type));
    expect(stepSpans.map((s) => s.name)).toEqual(steps.map((s) => `step ${s.type}`));
    for (const s of stepSpans) {
      expect(s.parentSpanId).toBe(server.spanId);
      expect(s.attributes["cockpit.run.id"]).toBe(run.id);
    }
    const toolSpan = stepSpans.find((s) => s.attributes["cockpit.step.type"] === "tool_call")!;
    expect(toolSpan.attributes).toMatchObject({ "cockpit.step.name": "add", "cockpit.step.ok": true });
    // Tool arguments, results and printed output are content: not in the step's span.
    expect(Object.keys(toolSpan.attributes).filter((k) => /args|result|stdout/.test(k))).toEqual([]);

    // A client span per upstream call, each the child of the model_call step that made it.
    const modelSteps = stepSpans.filter((s) => s.attributes["cockpit.step.type"] === "model_call");
    const modelDetails = steps.filter((s) => s.type === "model_call").map((s) => s.detail);
    expect(modelSteps).toHaveLength(2);
    const clients = spans.filter((s) => s.kind === CLIENT);
    expect(gw.fake.requests).toHaveLength(2);
    modelSteps.forEach((step, i) => {
      const client = clients.find((c) => c.parentSpanId === step.spanId)!;
      expect(client, `client span under model_call step ${i}`).toBeDefined();
      expect(client.name).toBe("chat gpt-4o-mini");
      expect(client.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": gw.fake.requests[i]!.body.model,
        "gen_ai.response.model": gw.fake.requests[i]!.body.model,
        "gen_ai.usage.input_tokens": modelDetails[i]!.prompt_tokens,
        "gen_ai.usage.output_tokens": modelDetails[i]!.completion_tokens,
        "gen_ai.response.finish_reasons": [i === 0 ? "tool_calls" : "stop"],
        "server.address": "127.0.0.1",
      });
      expect(client.attributes["gen_ai.usage.input_tokens"]).toBe(gw.fake.requests[i]!.usage!.prompt);
      for (const k of CONTENT_KEYS) expect(client.attributes[k]).toBeUndefined();
    });
    const sum = (k: string) => clients.reduce((n, c) => n + Number(c.attributes[k]), 0);
    expect(sum("gen_ai.usage.input_tokens")).toBe(run.usage.prompt_tokens);
    expect(sum("gen_ai.usage.output_tokens")).toBe(run.usage.completion_tokens);
  });

  it("a request Next.js routes continues traceparent too, with its route pattern and none of Next.js's own spans", async () => {
    const { key } = await gw.tenant();
    const threadId = await gw.thread(key, [{ role: "user", content: "hi" }]);
    const traceId = hex(16);
    const parentId = hex(8);
    const res = await fetch(`${gw.server.url}/v1/threads/${threadId}/messages?limit=5`, {
      headers: { authorization: `Bearer ${key}`, traceparent: `00-${traceId}-${parentId}-01` },
    });
    expect(res.status).toBe(200);
    await res.text();
    const server = await otlp().waitFor((all) => inTrace(all, traceId).find((s) => s.kind === SERVER));
    expect(server.parentSpanId).toBe(parentId);
    expect(server.attributes).toMatchObject({
      "http.route": "/v1/threads/[threadId]/messages",
      "url.path": `/v1/threads/${threadId}/messages`,
      "http.response.status_code": 200,
    });
    // Give a straggler a batch's time to arrive, then the trace is the server span alone.
    await new Promise((r) => setTimeout(r, 500));
    expect(inTrace(otlp().spans, traceId)).toEqual([server]);
  });

  it("a streamed completion (fast lane): a new trace; the client span ends with the stream and carries its usage", async () => {
    const { key } = await gw.tenant();
    gw.fake.queue.push({ kind: "paced", firstTokenMs: 50, intervalMs: 60, chunks: 5 });
    const res = await fetch(`${gw.server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: "count slowly to five" }],
      }),
    });
    expect(res.status).toBe(200);
    const frames = await sseData(res);
    const usage = frames.find((f) => typeof f === "object" && f.usage)!.usage;
    const id = frames[0].id as string;

    const server = await otlp().waitFor((all) =>
      all.find((s) => s.kind === SERVER && s.attributes["http.route"] === "/v1/chat/completions"),
    );
    expect(server.parentSpanId).toBe("");
    const spans = await otlp().waitFor((all) => {
      const t = inTrace(all, server.traceId);
      return t.some((s) => s.kind === CLIENT) && t.some((s) => s.name === "step model_call") ? t : undefined;
    });
    const step = spans.find((s) => s.name === "step model_call")!;
    expect(step.parentSpanId).toBe(server.spanId);
    const client = spans.find((s) => s.kind === CLIENT)!;
    expect(client.parentSpanId).toBe(step.spanId);
    expect(client.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": usage.prompt_tokens,
      "gen_ai.usage.output_tokens": usage.completion_tokens,
      "gen_ai.response.finish_reasons": ["stop"],
    });
    // Paced: five pieces 60 ms apart after 50 ms, so the span lasted past the last piece.
    expect(Number(client.endNs - client.startNs) / 1e6).toBeGreaterThanOrEqual(250);
    for (const k of CONTENT_KEYS) expect(client.attributes[k]).toBeUndefined();
    expect(id).toMatch(/^chatcmpl-/);
  });

  it("a client leaving mid-stream: the upstream span ends then, as failed; the server span says the client left", async () => {
    const { key } = await gw.tenant();
    gw.fake.queue.push({ kind: "slow-stream", chunks: 50, intervalMs: 100 });
    const abort = new AbortController();
    const res = await fetch(`${gw.server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        stream: true,
        messages: [{ role: "user", content: "go on forever" }],
      }),
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    await reader.closed.catch(() => {});
    const server = await otlp().waitFor((all) =>
      all.find(
        (s) =>
          s.kind === SERVER &&
          s.attributes["http.route"] === "/v1/chat/completions" &&
          s.endNs > 0n &&
          s.attributes["error.type"],
      ),
    );
    expect(server.attributes["error.type"]).toBe("client_closed");
    const client = await otlp().waitFor((all) => inTrace(all, server.traceId).find((s) => s.kind === CLIENT));
    expect(client.statusCode).toBe(2);
    // Ended when the client left, not after the 5 s the whole stream would take.
    expect(Number(client.endNs - client.startNs) / 1e6).toBeLessThan(4000);
  });

  it("a webhook event's run (jobs thread): a job span is the root, its steps and upstream calls under it", async () => {
    const { companyId, key } = await gw.tenant();
    const { url: trigger } = await makeWebhookAgent(db, { companyId, name: "Agent", topics: [] });
    const res = await fetch(`${gw.server.url}${trigger}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ event_topic: "orders.created", payload: { order: 42 } }),
    });
    expect(res.status).toBe(202);
    const eventId = (await res.json()).id as string;
    const deadline = Date.now() + 30_000;
    while ((await db.select().from(webhookEvents).where(eq(webhookEvents.id, eventId)))[0]!.status !== "done") {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 200));
    }
    const thread = (await gw.call(key, "GET", "/v1/threads?source=webhook")).json.data[0];
    const run = (await gw.call(key, "GET", `/v1/threads/${thread.id}/runs`)).json.data[0];
    const steps = (await gw.call(key, "GET", `/v1/threads/${thread.id}/runs/${run.id}/steps?limit=100`)).json.data;

    const spans = await otlp().waitFor((all) => {
      const first = all.find((s) => s.attributes["cockpit.run.id"] === run.id);
      const t = first ? inTrace(all, first.traceId) : [];
      return t.some((s) => s.kind === CLIENT) &&
        t.some((s) => s.name.startsWith("job ")) &&
        t.filter((s) => s.name.startsWith("step ")).length === steps.length
        ? t
        : undefined;
    });
    const job = spans.find((s) => s.name.startsWith("job "))!;
    expect(job.parentSpanId).toBe("");
    expect(job.attributes["cockpit.job.queue"]).toBeTypeOf("string");
    const stepSpans = spans.filter((s) => s.name.startsWith("step "));
    for (const s of stepSpans) expect(s.parentSpanId).toBe(job.spanId);
    const model = stepSpans.find((s) => s.name === "step model_call")!;
    const client = spans.find((s) => s.kind === CLIENT)!;
    expect(client.parentSpanId).toBe(model.spanId);
    expect(client.attributes["gen_ai.usage.input_tokens"]).toBe(run.usage.prompt_tokens);
  });

  it("an embeddings call: a GenAI client span under the request's server span", async () => {
    const { key } = await gw.tenant();
    const res = await gw.call(key, "POST", "/v1/embeddings", {
      model: "text-embedding-3-small",
      input: ["one two three", "four five"],
      dimensions: 6,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const client = await otlp().waitFor((all) =>
      all.find((s) => s.kind === CLIENT && s.attributes["gen_ai.operation.name"] === "embeddings"),
    );
    const server = await otlp().waitFor((all) => all.find((s) => s.spanId === client.parentSpanId));
    expect(server.attributes["http.route"]).toBe("/v1/embeddings");
    expect(client.name).toBe("embeddings text-embedding-3-small");
    expect(client.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "text-embedding-3-small",
      "gen_ai.embeddings.dimension.count": 6,
      "gen_ai.usage.input_tokens": res.json.usage.prompt_tokens,
    });
  });

  it("knowledge embeddings: indexing's under its job span, a run's query under its retrieval step", async () => {
    const { key } = await gw.tenant();
    const collectionId = (await gw.call(key, "POST", "/v1/knowledge", { name: "Plant", description: "" })).json.id;
    const up = await upload(gw.server.url, key, collectionId, {
      name: "valves.txt",
      bytes: "The spare valve key for turbine nine hangs in locker forty-two.",
    });
    expect(up.status).toBe(202);
    expect((await waitForDocument(gw.server.url, key, collectionId, up.json.id)).status).toBe("ready");
    const isEmbedding = (s: ReceivedSpan) =>
      s.kind === CLIENT && s.attributes["gen_ai.operation.name"] === "embeddings";
    const indexing = await otlp().waitFor((all) => {
      const jobs = all.filter((s) => s.name.startsWith("job ") && s.attributes["cockpit.job.id"] !== undefined);
      const embed = all.find((s) => isEmbedding(s) && jobs.some((j) => j.spanId === s.parentSpanId));
      return embed && { embed, job: jobs.find((j) => j.spanId === embed.parentSpanId)! };
    });
    expect(indexing.job.parentSpanId).toBe("");
    expect(indexing.embed.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "text-embedding-3-small",
      "gen_ai.usage.input_tokens": expect.any(Number),
    });

    const profile = (
      await gw.call(key, "POST", "/v1/profiles", { name: "plant", knowledge_base_ids: [collectionId], use_kb: true })
    ).json;
    const threadId = await gw.thread(key, [{ role: "user", content: "Where is the spare valve key?" }]);
    const run = await gw.call(key, "POST", `/v1/threads/${threadId}/runs`, {
      model: "local-mini",
      profile_ids: [profile.id],
    });
    expect(run.status, JSON.stringify(run.json)).toBe(200);
    const query = gw.fake.requests.filter((r) => r.path.startsWith("/v1/embeddings")).at(-1)!;
    const { step, embed } = await otlp().waitFor((all) => {
      const retrieval = all.find((s) => s.name === "step retrieval" && s.attributes["cockpit.run.id"] === run.json.id);
      const call = retrieval && all.find((s) => isEmbedding(s) && s.parentSpanId === retrieval.spanId);
      return call && { step: retrieval, embed: call };
    });
    expect(step.attributes["cockpit.step.type"]).toBe("retrieval");
    expect(embed.attributes["gen_ai.usage.input_tokens"]).toBe(query.usage!.prompt);
  });

  it("a trigger secret in a path is not exported", async () => {
    const secret = `trg_${hex(16)}`;
    const res = await fetch(`${gw.server.url}/v1/public/triggers/co_missing/${secret}`, { method: "POST", body: "{}" });
    await res.text();
    const server = await otlp().waitFor((all) =>
      all.find((s) => s.kind === SERVER && String(s.attributes["url.path"]).startsWith("/v1/public/triggers/")),
    );
    expect(server.attributes["http.route"]).toBe("/v1/public/triggers/[companyId]/[secret]");
    expect(JSON.stringify(otlp().spans.map((s) => s.attributes))).not.toContain(secret);
  });
});

describe("traces over http/json, message content captured", () => {
  const { gw, otlp } = tracedGateway({
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
  });

  it("prompts and answers are in the upstream span only with the capture switch on", async () => {
    const { key } = await gw.tenant();
    const res = await gw.call(key, "POST", "/v1/chat/completions", {
      model: "gpt-4o-mini",
      temperature: 0.5,
      max_tokens: 50,
      messages: [{ role: "user", content: "the quick brown fox" }],
    });
    expect(res.status).toBe(200);
    const client = await otlp().waitFor((all) => all.find((s) => s.kind === CLIENT));
    expect(otlp().contentTypes.every((t) => t.startsWith("application/json"))).toBe(true);
    expect(client.attributes).toMatchObject({
      "gen_ai.request.temperature": 0.5,
      "gen_ai.request.max_tokens": 50,
      "gen_ai.usage.input_tokens": res.json.usage.prompt_tokens,
      "gen_ai.usage.output_tokens": res.json.usage.completion_tokens,
    });
    const input = JSON.parse(String(client.attributes["gen_ai.input.messages"]));
    expect(input).toContainEqual({ role: "user", parts: [{ type: "text", content: "the quick brown fox" }] });
    const output = JSON.parse(String(client.attributes["gen_ai.output.messages"]));
    expect(output).toEqual([
      {
        role: "assistant",
        parts: [{ type: "text", content: res.json.choices[0].message.content }],
        finish_reason: "stop",
      },
    ]);
  });
});

describe("traces with WEB_CONCURRENCY=2", () => {
  const { gw, otlp } = tracedGateway({ WEB_CONCURRENCY: "2" });

  it("each server process exports its own requests' spans", async () => {
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${gw.server.url}/api/health`, { headers: { connection: "close" } });
      expect(res.status).toBe(200);
      await res.text();
    }
    const pids = await otlp().waitFor((all) => {
      const found = new Set(all.filter((s) => s.attributes["http.route"] === "/api/health").map((s) => s.pid));
      return found.size === 2 ? found : undefined;
    });
    expect(pids.has(gw.server.pid)).toBe(false);
  });
});

describe("traces pending at shutdown", () => {
  // Batches wait far longer than the test: only the shutdown's flush can deliver them.
  const { gw, otlp } = tracedGateway({ OTEL_BSP_SCHEDULE_DELAY: "600000" });

  it("SIGTERM flushes the spans not yet exported", async () => {
    const res = await fetch(`${gw.server.url}/api/ready`);
    await res.text();
    await new Promise((r) => setTimeout(r, 500));
    expect(otlp().spans.filter((s) => s.attributes["http.route"] === "/api/ready")).toEqual([]);
    await gw.server.stop();
    expect(otlp().spans.filter((s) => s.attributes["http.route"] === "/api/ready")).toHaveLength(1);
  });
});
