import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { countPromptTokens } from "@/lib/providers/tokens";
import { makeCompany, makeKey } from "../support/factories";
import { useGateway } from "../support/gateway";
import { renderTextPng } from "../support/png";

/**
 * POST /v1/messages end to end with the official `@anthropic-ai/sdk`: the offline `local-mini` and
 * an OpenAI-protocol model through the fake upstream (tool calls translated both ways), each call
 * billed exactly once as a `completion` entry of source `messages`.
 */
const gw = useGateway({
  fake: {
    // The fake calls the first offered tool until the conversation holds a tool result.
    toolCall: (body) =>
      body.messages.at(-1)?.role === "tool"
        ? null
        : { name: body.tools[0].function.name, arguments: { city: "Paris" } },
  },
});

const MODELS = ["local-mini", "gpt-4o-mini"] as const;
type Slug = (typeof MODELS)[number];
const upstream = (model: Slug) => model !== "local-mini";

const client = (apiKey: string) => new Anthropic({ baseURL: gw.server.url, apiKey, maxRetries: 0 });

/** The company's ledger entries for Messages calls, newest first. */
async function messageEntries(key: string) {
  const res = await gw.call(key, "GET", "/v1/usage");
  expect(res.status).toBe(200);
  return (res.json.data as any[]).filter((e) => e.kind !== "grant");
}

const weatherTool = {
  name: "get_weather",
  description: "The weather in a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};

describe.each(MODELS)("%s", (model) => {
  it("messages.create: Anthropic's message object, usage as the ledger bills it, one entry", async () => {
    const { key } = await gw.tenant(100);
    const { data: msg, response } = await client(key)
      .messages.create({
        model,
        max_tokens: 200,
        system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
        messages: [{ role: "user", content: "Tell me about invoices." }],
        // Sampling fields the SDK's types no longer list; Claude's API still takes them.
        ...({ temperature: 0.3, top_k: 4 } as object),
        metadata: { user_id: "user-7" },
      })
      .withResponse();
    expect(msg.id).toMatch(/^msg_[A-Za-z0-9]{24}$/);
    expect(msg).toMatchObject({
      type: "message",
      role: "assistant",
      model,
      stop_reason: "end_turn",
      stop_sequence: null,
    });
    expect(msg.content).toHaveLength(1);
    expect(msg.content[0]!.type).toBe("text");
    const text = (msg.content[0] as Anthropic.TextBlock).text;
    expect(text.length).toBeGreaterThan(0);
    expect(msg.usage.output_tokens).toBeGreaterThan(0);
    expect(msg.usage.cache_creation_input_tokens).toBe(0);
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(response.headers.get("x-ratelimit-limit-requests")).toBe("10000");

    if (upstream(model)) {
      expect(gw.fake.requests).toHaveLength(1);
      const sent = gw.fake.requests[0]!.body;
      expect(sent.messages[0]).toEqual({ role: "system", content: "Be brief." });
      expect(sent.messages.at(-1)).toEqual({ role: "user", content: "Tell me about invoices." });
      expect(sent).toMatchObject({ temperature: 0.3, user: "user-7" });
      expect(sent.top_k).toBeUndefined();
      expect(text).toBe("Echo from gpt-4o-mini: Tell me about invoices.");
    } else expect(gw.fake.requests).toHaveLength(0);

    const entries = await messageEntries(key);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      kind: "completion",
      source: "messages",
      model,
      prompt_tokens: msg.usage.input_tokens + (msg.usage.cache_read_input_tokens ?? 0),
      completion_tokens: msg.usage.output_tokens,
    });
    expect(entries[0].amount_ot).toBeLessThan(0);

    // The call is a throwaway thread of source `messages`.
    const threads = await gw.call(key, "GET", "/v1/threads?source=messages");
    expect(threads.status).toBe(200);
    expect(threads.json.data).toHaveLength(1);
  });

  it("messages.stream: message_start … message_stop, text deltas, finalMessage(), one entry", async () => {
    const { key } = await gw.tenant(100);
    const stream = client(key).messages.stream({
      model,
      max_tokens: 200,
      messages: [{ role: "user", content: "Summarise the refund policy in a few words please." }],
    });
    const types: string[] = [];
    let deltas = "";
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") deltas += ev.delta.text;
    }
    const final = await stream.finalMessage();
    expect(types[0]).toBe("message_start");
    expect(types.at(-1)).toBe("message_stop");
    expect(types.at(-2)).toBe("message_delta");
    expect(types.filter((t) => t === "content_block_delta").length).toBeGreaterThan(1);
    expect(types.filter((t) => t === "content_block_start")).toHaveLength(1);
    expect(types.filter((t) => t === "content_block_stop")).toHaveLength(1);
    expect(final.id).toMatch(/^msg_/);
    expect(final.stop_reason).toBe("end_turn");
    expect(final.content).toHaveLength(1);
    expect(final.content[0]).toMatchObject({ type: "text", text: deltas });
    expect(final.usage.output_tokens).toBeGreaterThan(0);

    const entries = await messageEntries(key);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      source: "messages",
      model,
      prompt_tokens: final.usage.input_tokens + (final.usage.cache_read_input_tokens ?? 0),
      completion_tokens: final.usage.output_tokens,
    });
  });

  it("a tool round trip: tool_use block → tool_result → final answer, each call billed once", async () => {
    const { key } = await gw.tenant(100);
    const anthropic = client(key);
    const question = { role: "user" as const, content: 'Please call get_weather with {"city":"Oslo"}' };
    const first = await anthropic.messages.create({
      model,
      max_tokens: 200,
      tools: [weatherTool],
      tool_choice: { type: "auto" },
      messages: [question],
    });
    expect(first.stop_reason).toBe("tool_use");
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use")!;
    expect(use).toMatchObject({
      type: "tool_use",
      name: "get_weather",
      input: { city: upstream(model) ? "Paris" : "Oslo" },
    });
    expect(use.id).toBeTruthy();

    if (upstream(model)) {
      const sent = gw.fake.requests[0]!.body;
      expect(sent.tools).toEqual([
        {
          type: "function",
          function: { name: "get_weather", description: "The weather in a city", parameters: weatherTool.input_schema },
        },
      ]);
      expect(sent.tool_choice).toBe("auto");
    }

    const second = anthropic.messages.stream({
      model,
      max_tokens: 200,
      tools: [weatherTool],
      messages: [
        question,
        { role: "assistant", content: first.content },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: use.id, content: [{ type: "text", text: '{"temp_c":21}' }] }],
        },
      ],
    });
    const final = await second.finalMessage();
    expect(final.stop_reason).toBe("end_turn");
    const answer = (final.content[0] as Anthropic.TextBlock).text;
    if (upstream(model)) {
      // The tool result went upstream as the chat format's tool message, after the assistant's call.
      const sent = gw.fake.requests[1]!.body;
      expect(sent.messages.slice(-2)).toEqual([
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: use.id, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: "tool", tool_call_id: use.id, content: '{"temp_c":21}' },
      ]);
    } else expect(answer).toContain('{"temp_c":21}');

    const entries = await messageEntries(key);
    expect(entries).toHaveLength(2);
    expect(entries.every((e) => e.source === "messages" && e.model === model)).toBe(true);
  });

  it("streams a tool call as a tool_use block with input_json_delta; finalMessage() parses its input", async () => {
    const { key } = await gw.tenant(100);
    const stream = client(key).messages.stream({
      model,
      max_tokens: 200,
      tools: [weatherTool],
      tool_choice: { type: "tool", name: "get_weather" },
      messages: [{ role: "user", content: 'Weather? {"city":"Rome"}' }],
    });
    const deltas: string[] = [];
    stream.on("inputJson", (partial) => deltas.push(partial));
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe("tool_use");
    const use = final.content.find((b) => b.type === "tool_use") as Anthropic.ToolUseBlock;
    expect(use.input).toEqual({ city: upstream(model) ? "Paris" : "Rome" });
    expect(deltas.length).toBeGreaterThan(0);
    if (upstream(model))
      expect(gw.fake.requests[0]!.body.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
    expect(await messageEntries(key)).toHaveLength(1);
  });

  it("messages.countTokens: the prompt's tokens, free of charge", async () => {
    const { key } = await gw.tenant(100);
    const res = await client(key).messages.countTokens({
      model,
      system: "Be brief.",
      messages: [{ role: "user", content: "How many tokens is this?" }],
      tools: [weatherTool],
    });
    expect(res.input_tokens).toBe(
      countPromptTokens(
        [
          { role: "system", content: "Be brief." },
          { role: "user", content: "How many tokens is this?" },
        ],
        [
          {
            type: "function",
            function: {
              name: "get_weather",
              description: weatherTool.description,
              parameters: weatherTool.input_schema,
            },
          },
        ],
      ),
    );
    expect(await messageEntries(key)).toHaveLength(0);
    expect(gw.fake.requests).toHaveLength(0);
  });
});

describe("auth and errors in Anthropic's shape", () => {
  it("takes the key as x-api-key (apiKey) or as Bearer (authToken)", async () => {
    const { key } = await gw.tenant(100);
    const viaBearer = new Anthropic({ baseURL: gw.server.url, authToken: key, apiKey: null, maxRetries: 0 });
    const msg = await viaBearer.messages.create({
      model: "local-mini",
      max_tokens: 50,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(msg.type).toBe("message");
    expect(await messageEntries(key)).toHaveLength(1);
  });

  it("401 authentication_error (SDK AuthenticationError), without and with a wrong key", async () => {
    const bad = client("sk-not-a-real-key");
    const err = await bad.messages
      .create({ model: "local-mini", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    const e = err as InstanceType<typeof Anthropic.AuthenticationError>;
    expect(e.status).toBe(401);
    expect(e.error).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    // Anthropic's SDKs read the request id from `request-id`.
    expect(e.requestID).toBe(e.headers?.get("x-request-id"));

    const none = await fetch(`${gw.server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "local-mini", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(none.status).toBe(401);
    const body = await none.json();
    expect(body).toEqual({
      type: "error",
      error: { type: "authentication_error", message: expect.stringContaining("x-api-key") },
      request_id: none.headers.get("x-request-id"),
    });
  });

  it("402 billing_error when the balance cannot cover the call, nothing billed", async () => {
    const { key } = await gw.tenant(0);
    const err = await client(key)
      .messages.create({ model: "gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    const e = err as InstanceType<typeof Anthropic.APIError>;
    expect(e.status).toBe(402);
    expect(e.error).toMatchObject({ type: "error", error: { type: "billing_error" } });
    expect(gw.fake.requests).toHaveLength(0);
    expect(await messageEntries(key)).toHaveLength(0);
  });

  it("404 not_found_error for an unknown model (NotFoundError), streaming or not", async () => {
    const { key } = await gw.tenant(100);
    for (const stream of [false, true]) {
      const err = await client(key)
        .messages.create({
          model: "no-such-model",
          max_tokens: 10,
          stream,
          messages: [{ role: "user", content: "hi" }],
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.NotFoundError);
      expect((err as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({
        error: { type: "not_found_error", message: expect.stringContaining("no-such-model") },
      });
    }
    const count = await client(key)
      .messages.countTokens({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(count).toBeInstanceOf(Anthropic.NotFoundError);
  });

  it("400 invalid_request_error for a malformed body (BadRequestError); unknown fields and blocks are ignored", async () => {
    const { key } = await gw.tenant(100);
    const err = await client(key)
      .messages.create({
        model: "local-mini",
        max_tokens: 10,
        messages: [{ role: "user", content: [{ type: "tool_result" } as never] }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringContaining("tool_use_id") },
    });
    const noMax = await gw.call(key, "POST", "/v1/messages", {
      model: "local-mini",
      messages: [{ role: "user", content: "x" }],
    });
    expect(noMax.status).toBe(400);
    expect(noMax.json.error.type).toBe("invalid_request_error");
    const bad = await fetch(`${gw.server.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).type).toBe("error");

    // What we cannot honour is accepted: thinking, cache_control, a server tool, unknown blocks, betas.
    const ok = await client(key).messages.create(
      {
        model: "local-mini",
        max_tokens: 50,
        thinking: { type: "enabled", budget_tokens: 1024 },
        tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 1 }],
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "hello there", cache_control: { type: "ephemeral" } },
              { type: "search_result", source: "x", title: "t", content: [] } as never,
            ],
          },
        ],
      },
      { headers: { "anthropic-beta": "interleaved-thinking-2025-05-14,some-future-beta" } },
    );
    expect(ok.stop_reason).toBe("end_turn");
    expect(await messageEntries(key)).toHaveLength(1);
  });

  it("429 rate_limit_error with retry-after and the x-ratelimit headers (SDK RateLimitError)", async () => {
    const company = await makeCompany(db, { creditsOt: 100 });
    const { secret } = await makeKey(db, { companyId: company.id, rateLimitPerMinute: 1 });
    const anthropic = client(secret);
    await anthropic.messages.create({
      model: "local-mini",
      max_tokens: 10,
      messages: [{ role: "user", content: "a" }],
    });
    const err = await anthropic.messages
      .create({ model: "local-mini", max_tokens: 10, messages: [{ role: "user", content: "b" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    const e = err as InstanceType<typeof Anthropic.RateLimitError>;
    expect(e.error).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    expect(Number(e.headers?.get("retry-after"))).toBeGreaterThan(0);
    expect(e.headers?.get("x-ratelimit-limit-requests")).toBe("1");
    expect(e.headers?.get("x-ratelimit-remaining-requests")).toBe("0");
  });

  it("a failure after the first byte ends the stream with an error event (the SDK raises it)", async () => {
    const { key } = await gw.tenant(100);
    gw.fake.queue.push({ kind: "break-stream", chunks: 2, intervalMs: 30 });
    const res = await fetch(`${gw.server.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        max_tokens: 100,
        stream: true,
        messages: [{ role: "user", content: "one two three four five" }],
      }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const events = text.split("\n\n").filter(Boolean);
    expect(events[0]).toMatch(/^event: message_start\ndata: /);
    const last = events.at(-1)!;
    expect(last).toMatch(/^event: error\ndata: /);
    expect(JSON.parse(last.split("data: ")[1]!)).toMatchObject({ type: "error", error: { type: "api_error" } });
    expect(text).not.toContain("message_stop");

    gw.fake.queue.push({ kind: "break-stream", chunks: 2, intervalMs: 30 });
    const stream = client(key).messages.stream({
      model: "gpt-4o-mini",
      max_tokens: 100,
      messages: [{ role: "user", content: "one two three four five" }],
    });
    await expect(stream.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIError);
  });
});

describe("GET /v1/models with anthropic-version", () => {
  it("answers Anthropic's list and model shapes; without the header, OpenAI's", async () => {
    const { key } = await gw.tenant(100);
    const anthropic = client(key);
    const ids: string[] = [];
    for await (const m of anthropic.models.list({ limit: 5 })) {
      expect(m).toEqual({ type: "model", id: m.id, display_name: m.id, created_at: expect.any(String) });
      expect(Number.isNaN(Date.parse(m.created_at))).toBe(false);
      ids.push(m.id);
    }
    expect(ids).toContain("local-mini");
    expect(ids).toContain("gpt-4o-mini");
    expect(ids).not.toContain("local-embedding");
    expect(new Set(ids).size).toBe(ids.length);

    const page = await fetch(`${gw.server.url}/v1/models?limit=2`, {
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01" },
    });
    const body = await page.json();
    expect(body).toEqual({ data: body.data, has_more: true, first_id: body.data[0].id, last_id: body.data[1].id });
    expect(body.data).toHaveLength(2);

    expect(await anthropic.models.retrieve("local-mini")).toMatchObject({ type: "model", id: "local-mini" });
    await expect(anthropic.models.retrieve("no-such-model")).rejects.toBeInstanceOf(Anthropic.NotFoundError);

    const openai = await gw.call(key, "GET", "/v1/models");
    expect(openai.json.object).toBe("list");
    expect(openai.json.data[0].object).toBe("model");
  });
});

describe("the pipeline behind the front door", () => {
  it("the company's default profile: its system prompt comes before the request's", async () => {
    const { key } = await gw.tenant(100);
    const profile = await gw.call(key, "POST", "/v1/profiles", {
      name: "Support",
      system_prompt: "You are the support desk.",
      is_default: true,
    });
    expect(profile.status).toBe(201);
    await client(key).messages.create({
      model: "gpt-4o-mini",
      max_tokens: 50,
      system: "Be brief.",
      messages: [{ role: "user", content: "hello" }],
    });
    const system = gw.fake.requests[0]!.body.messages[0];
    expect(system.role).toBe("system");
    const text = typeof system.content === "string" ? system.content : JSON.stringify(system.content);
    expect(text.indexOf("You are the support desk.")).toBeGreaterThanOrEqual(0);
    expect(text.indexOf("You are the support desk.")).toBeLessThan(text.indexOf("Be brief."));
  });

  it("an input guardrail block answers a refusal (stop_reason refusal), streaming or not, without calling the model", async () => {
    const { key } = await gw.tenant(100);
    const rule = await gw.call(key, "POST", "/v1/guardrails", {
      name: "no secrets",
      stage: "input",
      match: { type: "keyword", pattern: "launch codes" },
      action: "block",
    });
    expect(rule.status).toBe(201);
    const params = {
      model: "gpt-4o-mini",
      max_tokens: 50,
      messages: [{ role: "user" as const, content: "Tell me the launch codes" }],
    };
    const msg = await client(key).messages.create(params);
    expect(msg.stop_reason).toBe("refusal");
    expect(msg.content[0]!.type).toBe("text");
    expect((msg as unknown as { applied_rules: { name: string }[] }).applied_rules[0]!.name).toBe("no secrets");
    const streamed = await client(key).messages.stream(params).finalMessage();
    expect(streamed.stop_reason).toBe("refusal");
    expect(streamed.content).toEqual(msg.content);
    expect(gw.fake.requests).toHaveLength(0);
  });

  it("an output guardrail holds the stream and sends the checked (redacted) answer", async () => {
    const { key } = await gw.tenant(100);
    const rule = await gw.call(key, "POST", "/v1/guardrails", {
      name: "hide echo",
      stage: "output",
      match: { type: "keyword", pattern: "Echo" },
      action: "redact",
    });
    expect(rule.status).toBe(201);
    const final = await client(key)
      .messages.stream({ model: "gpt-4o-mini", max_tokens: 50, messages: [{ role: "user", content: "hello there" }] })
      .finalMessage();
    expect(final.content).toMatchObject([{ type: "text", text: "[REDACTED] from gpt-4o-mini: hello there" }]);
    expect(await messageEntries(key)).toHaveLength(1);
  });

  it("images (a base64 block) go through the multimodal stage as on completions", async () => {
    const { key } = await gw.tenant(100);
    const png = renderTextPng(["HELLO WORLD"]).png.toString("base64");
    const msg = await client(key).messages.create({
      model: "local-mini",
      max_tokens: 200,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What does it say?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
          ],
        },
      ],
    });
    const answer = (msg.content[0] as Anthropic.TextBlock).text;
    expect(answer).toContain("1 image");
    expect(answer).toMatch(/HELLO\s+WORLD/);
    expect(await messageEntries(key)).toHaveLength(1);
  });
});
