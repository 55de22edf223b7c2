import { readFileSync } from "node:fs";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, streamText } from "ai";
import { sql } from "drizzle-orm";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeKey } from "../support/factories";
import { sseData, useGateway } from "../support/gateway";

/**
 * The Responses and Conversations APIs end to end with real clients (the official `openai` SDK, the
 * Vercel AI SDK's `@ai-sdk/openai` responses model) against the production build: an offline
 * `local` model and an OpenAI-group model through the fake upstream. Every answered call is billed
 * exactly once (a ledger entry whose reference_id is the response id).
 */
const WEATHER_JSON = JSON.stringify({ city: "Paris", temp_c: 21 });
const CALL_PROMPT = 'Please call get_weather {"city":"Paris"}';
const WEATHER_TOOL = {
  type: "function" as const,
  name: "get_weather",
  description: "The weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: false,
};

const gw = useGateway({
  fake: {
    // The upstream calls the first offered tool while the conversation ends with the user's turn.
    toolCall: (body) =>
      body.tools?.length && body.messages.at(-1)?.role === "user"
        ? { name: body.tools[0].function.name, arguments: { city: "Paris" } }
        : null,
  },
});

const client = (key: string) => new OpenAI({ baseURL: `${gw.server.url}/v1`, apiKey: key, maxRetries: 0 });

const TARGETS = [
  { slug: "local-chat-latest", upstream: false },
  { slug: "gpt-4o-mini", upstream: true },
];

async function entriesFor(key: string, ids: string[]) {
  const res = await gw.call(key, "GET", "/v1/usage?limit=100");
  expect(res.status).toBe(200);
  return (res.json.data as any[]).filter((e) => ids.includes(e.reference_id));
}

/** Each id billed exactly once, as a run entry, with the response's cost. */
async function expectBilledOnce(key: string, ids: string[]) {
  const entries = await entriesFor(key, ids);
  expect(entries.map((e) => e.reference_id).sort()).toEqual([...ids].sort());
  for (const e of entries) {
    expect(e.kind).toBe("run");
    expect(e.amount_ot).toBeLessThan(0);
  }
  return entries;
}

const userTexts = (body: any) =>
  (body.messages as any[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((p: any) => p.text).join(" ")));

describe.each(TARGETS)("$slug", ({ slug, upstream }) => {
  it("responses.create plain: the response object, usage, extensions, billed once", async () => {
    const { key } = await gw.tenant(100);
    const r = await client(key).responses.create({
      model: slug,
      input: "Hello there, gateway",
      instructions: "Be brief.",
    });
    expect(r.id).toMatch(/^resp_/);
    expect(r.object).toBe("response");
    expect(r.status).toBe("completed");
    expect(r.model).toBe(slug);
    expect(r.instructions).toBe("Be brief.");
    expect(r.output).toHaveLength(1);
    expect(r.output[0]).toMatchObject({ type: "message", role: "assistant", status: "completed" });
    expect(r.output_text.length).toBeGreaterThan(0);
    expect(r.usage!.input_tokens).toBeGreaterThan(0);
    expect(r.usage!.output_tokens).toBeGreaterThan(0);
    expect(r.usage!.total_tokens).toBe(r.usage!.input_tokens + r.usage!.output_tokens);
    expect(r.usage!.input_tokens_details.cached_tokens).toBe(0);
    expect(r.usage!.output_tokens_details.reasoning_tokens).toBe(0);
    const ext = r as unknown as { applied_rules: unknown[]; cost_ot: number };
    expect(ext.applied_rules).toEqual([]);
    expect(ext.cost_ot).toBeGreaterThan(0);
    if (upstream) {
      expect(gw.fake.requests).toHaveLength(1);
      expect(gw.fake.requests[0]!.body.messages[0]).toMatchObject({ role: "system" });
      expect(r.output_text).toBe("Echo from gpt-4o-mini: Hello there, gateway");
    }
    const [entry] = await expectBilledOnce(key, [r.id]);
    expect(entry.amount_ot).toBeCloseTo(-ext.cost_ot, 6);
    expect(entry.source).toBe("responses");

    // GET answers the same object; input_items lists the input; DELETE removes it.
    const got = await client(key).responses.retrieve(r.id);
    expect(got.output).toEqual(r.output);
    expect(got.usage).toEqual(r.usage);
    const items = await client(key).responses.inputItems.list(r.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "Hello there, gateway" }],
    });
    // The steps of a response, at the runs' route (its conversation is its thread).
    const threadId = (r as any).conversation.id as string;
    const steps = await gw.call(key, "GET", `/v1/threads/${threadId}/runs/${r.id}/steps`);
    expect(steps.status).toBe(200);
    expect(steps.json.data.map((s: any) => s.type)).toContain("model_call");
    expect(steps.json.data.map((s: any) => s.type)).toContain("history");
    const thread = await gw.call(key, "GET", `/v1/threads/${threadId}`);
    expect(thread.json.source).toBe("responses");

    const del = await gw.call(key, "DELETE", `/v1/responses/${r.id}`);
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ id: r.id, object: "response", deleted: true });
    await expect(client(key).responses.retrieve(r.id)).rejects.toMatchObject({ status: 404 });
    // Another company's key cannot read it either way.
    const other = await gw.tenant(1);
    expect((await gw.call(other.key, "GET", `/v1/responses/${r.id}`)).status).toBe(404);
    // The bill stays.
    await expectBilledOnce(key, [r.id]);
  });

  it("stream: the semantic events in order with consecutive sequence_numbers", async () => {
    const { key } = await gw.tenant(100);
    const stream = await client(key).responses.create({ model: slug, input: "Stream me a sentence", stream: true });
    const events: any[] = [];
    for await (const e of stream) events.push(e);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ]);
    expect(types.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const deltas = events.filter((e) => e.type === "response.output_text.delta");
    expect(deltas.length).toBeGreaterThan(0);
    expect(types.slice(4, 4 + deltas.length).every((t) => t === "response.output_text.delta")).toBe(true);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const completed = events.at(-1).response;
    const text = deltas.map((d) => d.delta).join("");
    expect(completed.output[0].content[0].text).toBe(text);
    expect(events.find((e) => e.type === "response.output_text.done").text).toBe(text);
    expect(completed.status).toBe("completed");
    expect(completed.usage.total_tokens).toBeGreaterThan(0);
    expect(events[0].response.id).toBe(completed.id);
    await expectBilledOnce(key, [completed.id]);
    expect((await client(key).responses.retrieve(completed.id)).output_text).toBe(text);
  });

  it("previous_response_id continues a chain; two continuations of one response fork", async () => {
    const { key } = await gw.tenant(100);
    const c = client(key);
    const r1 = await c.responses.create({ model: slug, input: "My name is Ada" });
    const r2 = await c.responses.create({ model: slug, input: "Branch two", previous_response_id: r1.id });
    const r3 = await c.responses.create({ model: slug, input: "Branch three", previous_response_id: r1.id });
    const r4 = await c.responses.create({ model: slug, input: "And four", previous_response_id: r3.id });
    expect(r4.previous_response_id).toBe(r3.id);
    const threadId = (r1 as any).conversation.id;
    expect((r4 as any).conversation.id).toBe(threadId);
    if (upstream) {
      const bodies = gw.fake.requests.map((q) => q.body);
      expect(userTexts(bodies[1])).toEqual(["My name is Ada", "Branch two"]);
      expect(userTexts(bodies[2])).toEqual(["My name is Ada", "Branch three"]);
      expect(userTexts(bodies[3])).toEqual(["My name is Ada", "Branch three", "And four"]);
      // The previous answers are in the history as assistant turns.
      expect(bodies[3].messages.filter((m: any) => m.role === "assistant").map((m: any) => m.content)).toEqual([
        r1.output_text,
        r3.output_text,
      ]);
    }
    // The history step: r4 saw r1's and r3's input and answer (4 messages) plus its own input, not r2's.
    const steps = await gw.call(key, "GET", `/v1/threads/${threadId}/runs/${r4.id}/steps`);
    const history = steps.json.data.find((s: any) => s.type === "history").detail;
    expect(history).toMatchObject({
      chain_messages_read: 4,
      chain_complete: true,
      messages_sent: 4,
      input_messages: 1,
      previous_response_id: r3.id,
    });
    await expectBilledOnce(key, [r1.id, r2.id, r3.id, r4.id]);
  });

  it("store: false keeps only the bill: retrieve is 404 and it cannot be continued", async () => {
    const { key, companyId } = await gw.tenant(100);
    const c = client(key);
    const r = await c.responses.create({ model: slug, input: "Forget me", store: false });
    expect(r.status).toBe("completed");
    expect((r as any).store).toBe(false);
    expect((r as any).conversation).toBeNull();
    await expect(c.responses.retrieve(r.id)).rejects.toMatchObject({ status: 404 });
    await expect(c.responses.create({ model: slug, input: "again", previous_response_id: r.id })).rejects.toMatchObject(
      {
        status: 404,
        code: "previous_response_not_found",
      },
    );
    const [rows] = (await db.execute(sql`
      SELECT (SELECT count(*) FROM threads WHERE company_id = ${companyId})::int AS threads,
             (SELECT count(*) FROM runs WHERE company_id = ${companyId})::int AS runs,
             (SELECT count(*) FROM messages WHERE company_id = ${companyId})::int AS messages`)) as unknown as any[];
    expect(rows).toEqual({ threads: 0, runs: 0, messages: 0 });
    await expectBilledOnce(key, [r.id]);

    // A store:false continuation of a stored response reads its chain and stores nothing.
    const kept = await c.responses.create({ model: slug, input: "Keep this" });
    const next = await c.responses.create({
      model: slug,
      input: "Then this",
      previous_response_id: kept.id,
      store: false,
    });
    if (upstream) expect(userTexts(gw.fake.requests.at(-1)!.body)).toEqual(["Keep this", "Then this"]);
    await expect(c.responses.retrieve(next.id)).rejects.toMatchObject({ status: 404 });
    await expectBilledOnce(key, [r.id, kept.id, next.id]);
  });

  it("function tools round trip: function_call item, function_call_output, final answer", async () => {
    const { key } = await gw.tenant(100);
    const c = client(key);
    const first = await c.responses.create({ model: slug, input: CALL_PROMPT, tools: [WEATHER_TOOL] });
    const call = first.output.find((o) => o.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: "get_weather", status: "completed" });
    if (call?.type !== "function_call") throw new Error("no function call");
    expect(JSON.parse(call.arguments)).toEqual({ city: "Paris" });
    expect(call.id).toMatch(/^fc_/);
    expect(call.call_id.length).toBeGreaterThan(0);
    const second = await c.responses.create({
      model: slug,
      previous_response_id: first.id,
      tools: [WEATHER_TOOL],
      input: [{ type: "function_call_output", call_id: call.call_id, output: WEATHER_JSON }],
    });
    expect(second.status).toBe("completed");
    expect(second.output.every((o) => o.type === "message")).toBe(true);
    if (upstream) {
      const sent = gw.fake.requests.at(-1)!.body.messages as any[];
      expect(sent.at(-2)).toMatchObject({ role: "assistant", tool_calls: [{ id: call.call_id }] });
      expect(sent.at(-1)).toMatchObject({ role: "tool", tool_call_id: call.call_id, content: WEATHER_JSON });
      expect(second.output_text).toBe(`Echo from gpt-4o-mini: ${CALL_PROMPT}`);
    } else {
      expect(second.output_text).toContain(WEATHER_JSON);
    }
    // The tool output is the second response's input item.
    const items = await c.responses.inputItems.list(second.id);
    expect(items.data).toEqual([
      expect.objectContaining({ type: "function_call_output", call_id: call.call_id, output: WEATHER_JSON }),
    ]);
    await expectBilledOnce(key, [first.id, second.id]);
  });

  it("conversations: create with items, add and list items, a response in the conversation", async () => {
    const { key } = await gw.tenant(100);
    const c = client(key);
    const conv = await c.conversations.create({
      metadata: { topic: "codes" },
      items: [{ type: "message", role: "user", content: "Remember: the code is 42" }],
    });
    expect(conv).toMatchObject({ object: "conversation", metadata: { topic: "codes" } });
    const added = await c.conversations.items.create(conv.id, {
      items: [{ type: "message", role: "user", content: [{ type: "input_text", text: "What is the code?" }] }],
    });
    expect(added.data).toHaveLength(1);
    const listed = await c.conversations.items.list(conv.id, { order: "asc" });
    expect(listed.data.map((i: any) => i.content[0].text)).toEqual(["Remember: the code is 42", "What is the code?"]);

    const r = await c.responses.create({ model: slug, conversation: conv.id, input: "Answer now" });
    expect((r as any).conversation).toEqual({ id: conv.id });
    if (upstream)
      expect(userTexts(gw.fake.requests.at(-1)!.body)).toEqual([
        "Remember: the code is 42",
        "What is the code?",
        "Answer now",
      ]);
    const after = await c.conversations.items.list(conv.id, { order: "asc" });
    expect(after.data.map((i: any) => i.role)).toEqual(["user", "user", "user", "assistant"]);
    expect((after.data[3] as any).content[0]).toMatchObject({ type: "output_text", text: r.output_text });
    expect(after.data[3]!.id).toBe(r.output[0]!.id);

    // The same id is a thread of the threads API.
    const thread = await gw.call(key, "GET", `/v1/threads/${conv.id}`);
    expect(thread.json).toMatchObject({ id: conv.id, source: "conversations" });
    const one = await c.conversations.items.retrieve(after.data[0]!.id!, { conversation_id: conv.id });
    expect(one.id).toBe(after.data[0]!.id);
    await c.conversations.items.delete(after.data[0]!.id!, { conversation_id: conv.id });
    expect((await c.conversations.items.list(conv.id)).data).toHaveLength(3);
    const updated = await c.conversations.update(conv.id, { metadata: { topic: "other" } });
    expect(updated.metadata).toEqual({ topic: "other" });
    await expectBilledOnce(key, [r.id]);
    const deleted = await c.conversations.delete(conv.id);
    expect(deleted).toMatchObject({ id: conv.id, deleted: true });
    await expect(c.conversations.retrieve(conv.id)).rejects.toMatchObject({ status: 404 });
  });

  it("Vercel AI SDK (@ai-sdk/openai responses): generateText and streamText, each billed once", async () => {
    const { key } = await gw.tenant(100);
    const model = createOpenAI({ baseURL: `${gw.server.url}/v1`, apiKey: key }).responses(slug);
    const gen = await generateText({ model, prompt: "Say something nice" });
    expect(gen.text.length).toBeGreaterThan(0);
    expect(gen.usage.inputTokens).toBeGreaterThan(0);
    expect(gen.usage.outputTokens).toBeGreaterThan(0);
    const genId = gen.response.id;
    expect(genId).toMatch(/^resp_/);

    const streamed = streamText({ model, prompt: "Stream something nice" });
    const text = await streamed.text;
    const usage = await streamed.usage;
    const streamedId = (await streamed.response).id;
    expect(text.length).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
    expect(streamedId).toMatch(/^resp_/);
    if (upstream) expect(text).toBe("Echo from gpt-4o-mini: Stream something nice");
    await expectBilledOnce(key, [genId, streamedId]);
  });
});

describe("local model specifics", () => {
  it("retrieve echoes the request as create did: OpenAI's defaults when unset, the client's values when set", async () => {
    const { key } = await gw.tenant(100);
    const fields = [
      "instructions",
      "max_output_tokens",
      "temperature",
      "top_p",
      "tools",
      "tool_choice",
      "parallel_tool_calls",
      "metadata",
      "store",
    ] as const;
    const echo = (r: Record<string, unknown>) => Object.fromEntries(fields.map((f) => [f, r[f]]));
    const bare = await client(key).responses.create({ model: "local-chat-latest", input: "Hi" });
    expect(echo(bare as any)).toEqual({
      instructions: null,
      max_output_tokens: null,
      temperature: 1,
      top_p: 1,
      tools: [],
      tool_choice: "auto",
      parallel_tool_calls: true,
      metadata: {},
      store: true,
    });
    const set = await client(key).responses.create({
      model: "local-chat-latest",
      input: "Hi",
      instructions: "Be brief.",
      max_output_tokens: 64,
      temperature: 0.5,
      top_p: 0.9,
      tools: [WEATHER_TOOL, { type: "web_search" } as any],
      tool_choice: "none",
      parallel_tool_calls: false,
      metadata: { topic: "echo" },
    });
    expect(echo(set as any)).toEqual({
      instructions: "Be brief.",
      max_output_tokens: 64,
      temperature: 0.5,
      top_p: 0.9,
      tools: [WEATHER_TOOL],
      tool_choice: "none",
      parallel_tool_calls: false,
      metadata: { topic: "echo" },
      store: true,
    });
    for (const r of [bare, set])
      expect(echo((await client(key).responses.retrieve(r.id)) as any)).toEqual(echo(r as any));
  });

  it("a streamed function call: the function_call item's events, then response.completed", async () => {
    const { key } = await gw.tenant(100);
    const stream = await client(key).responses.create({
      model: "local-chat-latest",
      input: CALL_PROMPT,
      tools: [WEATHER_TOOL],
      stream: true,
    });
    const events: any[] = [];
    for await (const e of stream) events.push(e);
    const types = events.map((e) => e.type);
    const at = types.indexOf("response.function_call_arguments.delta");
    expect(types.slice(at - 1)).toEqual([
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events[at - 1].item).toMatchObject({ type: "function_call", name: "get_weather", arguments: "" });
    expect(JSON.parse(events[at + 1].arguments)).toEqual({ city: "Paris" });
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const done = events.at(-1).response;
    expect(done.output.at(-1)).toMatchObject({ type: "function_call", call_id: events[at + 2].item.call_id });
    await expectBilledOnce(key, [done.id]);
  });

  it("a chain longer than a page is read page by page, newest first, without a fork's messages", async () => {
    const { key } = await gw.tenant(100);
    const c = client(key);
    const first = await c.responses.create({ model: "local-chat-latest", input: "turn 0" });
    await c.responses.create({ model: "local-chat-latest", input: "a fork", previous_response_id: first.id });
    let prev = first.id;
    for (let i = 1; i < 40; i++)
      prev = (await c.responses.create({ model: "local-chat-latest", input: `turn ${i}`, previous_response_id: prev }))
        .id;
    const last = await c.responses.create({ model: "local-chat-latest", input: "last", previous_response_id: prev });
    const threadId = (last as any).conversation.id;
    const steps = await gw.call(key, "GET", `/v1/threads/${threadId}/runs/${last.id}/steps`);
    const history = steps.json.data.find((s: any) => s.type === "history").detail;
    expect(history).toMatchObject({ chain_messages_read: 80, chain_complete: true, input_messages: 1 });
    expect(history.messages_sent).toBeGreaterThan(0);
    expect(history.messages_sent).toBeLessThanOrEqual(80);
  });

  it("profile tools with use_tools run server-side, as on runs; the response shows only the answer", async () => {
    const { key } = await gw.tenant(100);
    const created = await gw.call(key, "POST", "/v1/tools", {
      name: "add",
      description: "adds",
      json_schema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      python_code: "def add(a, b):\n    return a + b\n",
    });
    expect(created.status).toBe(201);
    const profile = await gw.call(key, "POST", "/v1/profiles", {
      name: "calc",
      allowed_tool_names: ["add"],
      use_tools: true,
    });
    const r = await client(key).responses.create({
      model: "local-chat-latest",
      input: 'call add {"a": 20, "b": 22}',
      profile_ids: [profile.json.id],
    } as any);
    expect(r.output.map((o) => o.type)).toEqual(["message"]);
    expect(r.output_text).toContain("42");
    const threadId = (r as any).conversation.id;
    const steps = await gw.call(key, "GET", `/v1/threads/${threadId}/runs/${r.id}/steps`);
    expect(steps.json.data.map((s: any) => s.type)).toEqual([
      "profiles",
      "history",
      "model_call",
      "tool_call",
      "model_call",
    ]);
    await expectBilledOnce(key, [r.id]);
  });

  it("403 without the chat scope; 404 for another company's conversation; 400 for bad input", async () => {
    const { companyId, key } = await gw.tenant(100);
    const { secret } = await makeKey(db, { companyId, scopes: ["view"] });
    for (const [method, path] of [
      ["POST", "/v1/responses"],
      ["GET", "/v1/responses/resp_x"],
      ["POST", "/v1/conversations"],
      ["GET", "/v1/conversations/thread_x/items"],
    ] as const) {
      const res = await gw.call(
        secret,
        method,
        path,
        method === "POST" ? { model: "local-chat-latest", input: "x" } : undefined,
      );
      expect(res.status, path).toBe(403);
    }
    const conv = await client(key).conversations.create({});
    const other = await gw.tenant(100);
    await expect(client(other.key).conversations.retrieve(conv.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      client(other.key).responses.create({ model: "local-chat-latest", input: "x", conversation: conv.id }),
    ).rejects.toMatchObject({ status: 404 });
    const bad = await gw.call(key, "POST", "/v1/responses", { model: "local-chat-latest" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe("input");
    const both = await gw.call(key, "POST", "/v1/responses", {
      model: "local-chat-latest",
      input: "x",
      conversation: conv.id,
      previous_response_id: "resp_x",
    });
    expect(both.status).toBe(400);
    // An unknown model is refused before a thread is made for the response.
    const unknown = await gw.call(key, "POST", "/v1/responses", { model: "no-such-model", input: "x" });
    expect(unknown.status).toBe(404);
    const threads = await gw.call(key, "GET", "/v1/threads");
    expect(threads.json.data.map((t: any) => t.id)).toEqual([conv.id]);
    // Nothing answered, nothing billed.
    expect((await gw.call(key, "GET", "/v1/usage")).json.data.filter((e: any) => e.kind !== "grant")).toEqual([]);
  });
});

describe("Codex CLI's request (test/fixtures/clients/codex-responses.json), replayed", () => {
  const fixture = JSON.parse(readFileSync("test/fixtures/clients/codex-responses.json", "utf8"));

  async function replay(key: string, model: string) {
    const res = await fetch(`${gw.server.url}${fixture.path}`, {
      method: fixture.method,
      headers: { ...fixture.headers, authorization: `Bearer ${key}` },
      body: JSON.stringify({ ...fixture.body, model }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await sseData(res);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0].type).toBe("response.created");
    return events;
  }

  it("on a local model: a streamed answer, billed once, nothing stored (store: false)", async () => {
    const { key } = await gw.tenant(100);
    const events = await replay(key, "local-chat-latest");
    const done = events.at(-1);
    expect(done.type).toBe("response.completed");
    expect(done.response.store).toBe(false);
    expect(done.response.output[0].content[0].text).toContain("Say hello to the gateway");
    await expectBilledOnce(key, [done.response.id]);
    expect((await gw.call(key, "GET", `/v1/responses/${done.response.id}`)).status).toBe(404);
  });

  it("on an upstream model: developer items as the system prompt, its function tools offered, a function_call back", async () => {
    const { key } = await gw.tenant(100);
    const events = await replay(key, "gpt-4o-mini");
    const sent = gw.fake.requests[0]!.body;
    expect(sent.messages[0].role).toBe("system");
    expect(sent.messages.slice(1).every((m: any) => m.role === "user")).toBe(true);
    const offered = fixture.body.tools.filter((t: any) => t.type === "function").map((t: any) => t.name);
    expect(sent.tools.map((t: any) => t.function.name)).toEqual(offered);
    const done = events.at(-1);
    expect(done.type).toBe("response.completed");
    expect(done.response.output).toEqual([
      expect.objectContaining({
        type: "function_call",
        name: offered[0],
        arguments: JSON.stringify({ city: "Paris" }),
      }),
    ]);
    await expectBilledOnce(key, [done.response.id]);
  });
});

describe("as runs", () => {
  it("a client that disconnects mid-stream cancels the response: upstream aborted, billed once for what was generated", async () => {
    const { key, companyId } = await gw.tenant(100);
    gw.fake.queue.push({ kind: "slow-stream", chunks: 200, intervalMs: 50 });
    const abort = new AbortController();
    const res = await fetch(`${gw.server.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", input: "a long answer please", stream: true }),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes("response.output_text.delta")) seen += new TextDecoder().decode((await reader.read()).value);
    const id = /"id":"(resp_[A-Za-z0-9]+)"/.exec(seen)![1]!;
    abort.abort();
    let run: any;
    for (let i = 0; i < 100 && !run; i++) {
      await new Promise((r) => setTimeout(r, 50));
      [run] = (await db.execute(
        sql`SELECT status, completion_tokens FROM runs WHERE id = ${id} AND company_id = ${companyId}`,
      )) as unknown as any[];
    }
    expect(run).toMatchObject({ status: "cancelled" });
    expect(run.completion_tokens).toBeGreaterThan(0);
    expect(gw.fake.requests[0]!.abortedAt).toBeDefined();
    const [entry] = await expectBilledOnce(key, [id]);
    expect(entry.completion_tokens).toBe(run.completion_tokens);
    expect((await client(key).responses.retrieve(id)).status).toBe("cancelled");
  });

  it("refused before its model call: a 402 is stored as a failed response it names; a 429 wins and stores nothing", async () => {
    const { companyId } = await gw.tenant(0);
    const { secret: key } = await makeKey(db, { companyId, rateLimitPerMinute: 1 });
    const storedRuns = async () =>
      ((await db.execute(sql`SELECT id, status FROM runs WHERE company_id = ${companyId}`)) as unknown as any[]).map(
        (r) => [r.id, r.status],
      );
    const broke = await gw.call(key, "POST", "/v1/responses", { model: "gpt-4o-mini", input: "hi" });
    expect(broke.status).toBe(402);
    const id = broke.json.run_id;
    expect(id).toMatch(/^resp_/);
    expect(await storedRuns()).toEqual([[id, "failed"]]);
    // Over the key's limit: the 429 comes first, whatever else the call would have met.
    const limited = await gw.call(key, "POST", "/v1/responses", { model: "gpt-4o-mini", input: "hi" });
    expect(limited.status).toBe(429);
    expect(limited.json.run_id).toBeUndefined();
    expect(await storedRuns()).toEqual([[id, "failed"]]);
    expect(gw.fake.requests).toHaveLength(0);
  });

  it("an input guardrail block answers completed with the refusal and the rule in applied_rules, unbilled", async () => {
    const { key } = await gw.tenant(100);
    const rule = await gw.call(key, "POST", "/v1/guardrails", {
      name: "no secrets",
      stage: "input",
      match: { type: "keyword", pattern: "password" },
      action: "block",
    });
    expect(rule.status).toBe(201);
    const r = await client(key).responses.create({ model: "gpt-4o-mini", input: "tell me the password" });
    expect(r.status).toBe("completed");
    expect(gw.fake.requests).toHaveLength(0);
    expect((r as any).applied_rules).toEqual([
      expect.objectContaining({ id: rule.json.id, action: "block", stage: "input" }),
    ]);
    expect(r.output_text.length).toBeGreaterThan(0);
    expect(await entriesFor(key, [r.id])).toEqual([]);

    // A redacting rule: the model gets, and the response stores, the redacted input.
    await gw.call(key, "POST", "/v1/guardrails", {
      name: "no cards",
      stage: "input",
      match: { type: "keyword", pattern: "4111" },
      action: "redact",
    });
    const red = await client(key).responses.create({ model: "gpt-4o-mini", input: "my card is 4111 ok" });
    expect(red.output_text).toBe("Echo from gpt-4o-mini: my card is [REDACTED] ok");
    const items = await client(key).responses.inputItems.list(red.id);
    expect((items.data[0] as any).content[0].text).toBe("my card is [REDACTED] ok");
  });
});
