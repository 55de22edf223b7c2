import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { AIMessageChunk, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { db } from "@/db/client";
import { makeCompany, makeKey } from "../support/factories";
import { setModelOverride } from "@/lib/models";
import { firstJsonObject } from "@/lib/providers/local/respond";
import { startFakeUpstream, type FakeUpstream, type RecordedRequest } from "../support/fake-upstream";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * Real, unmodified clients (the official `openai` SDK, the Vercel AI SDK through
 * @ai-sdk/openai-compatible, LangChain's ChatOpenAI) against the production build: an offline
 * `local` model, an OpenAI-protocol group and an Anthropic-protocol group, both pointed at the
 * fake upstream so we can check what the gateway sent on.
 */
type Wire = "local" | "openai" | "anthropic";
interface Target {
  slug: string;
  wire: Wire;
  upstreamId?: string;
}
const TARGETS: Target[] = [
  { slug: "local-chat-latest", wire: "local" },
  { slug: "gpt-4.1-mini", wire: "openai", upstreamId: "gpt-4.1-mini" },
  { slug: "claude-haiku-4-5", wire: "anthropic", upstreamId: "claude-haiku-4-5" },
];

const UPSTREAM_OPENAI_KEY = "sk-upstream-test";
const UPSTREAM_ANTHROPIC_KEY = "sk-ant-upstream-test";
const PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const WEATHER = { city: "Paris", temp_c: 21 };
const WEATHER_JSON = JSON.stringify(WEATHER);
const CALL_PROMPT = 'Please call get_weather {"city":"Paris"}';
const WEATHER_PARAMETERS = {
  type: "object",
  properties: { city: { type: "string", description: "City name" } },
  required: ["city"],
  additionalProperties: false,
};

/** Text of the last user turn, in either wire protocol. */
function lastUserText(body: any): string {
  const msgs: any[] = body.messages ?? [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    if (msgs[i].role !== "user") continue;
    const c = msgs[i].content;
    if (typeof c === "string") return c;
    const text = (c as any[]).filter((p) => p.type === "text").map((p) => p.text);
    if (text.length) return text.join(" ");
  }
  return "";
}

/** The tool result the request ends with (OpenAI `tool` message or Anthropic `tool_result` block), else null. */
function trailingToolResult(body: any): string | null {
  const last = body.messages?.at(-1);
  if (last?.role === "tool") return String(last.content);
  const block = Array.isArray(last?.content) ? last.content.find((b: any) => b.type === "tool_result") : undefined;
  return block ? String(block.content) : null;
}

let server: RunningServer;
let fake: FakeUpstream;
let baseURL: string;
let apiKey: string;

beforeAll(async () => {
  fake = await startFakeUpstream({
    reply: (body) => {
      const result = trailingToolResult(body);
      return result
        ? `Upstream read the tool result ${result} and is done.`
        : `Echo from ${body.model}: ${lastUserText(body)}`;
    },
    toolCall: (body) => {
      if (trailingToolResult(body) !== null) return null;
      const first = body.tools[0];
      return { name: first.function?.name ?? first.name, arguments: firstJsonObject(lastUserText(body)) ?? {} };
    },
  });
  server = await startNextServer({
    OPENAI_BASE_URL: fake.openaiBase,
    OPENAI_API_KEY: UPSTREAM_OPENAI_KEY,
    ANTHROPIC_BASE_URL: fake.anthropicBase,
    ANTHROPIC_API_KEY: UPSTREAM_ANTHROPIC_KEY,
  });
  const company = await makeCompany(db, { creditsOt: 100_000 });
  // claude-… slugs are disabled by default (SPEC); this company opts in.
  await setModelOverride(db, { companyId: company.id, slug: "claude-haiku-4-5", input: { enabled: true } });
  apiKey = (await makeKey(db, { companyId: company.id })).secret;
  baseURL = `${server.url}/v1`;
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

/** Runs `fn` and returns what the fake upstream received meanwhile (the file runs its tests in sequence). */
async function capture<T>(fn: () => Promise<T>): Promise<{ result: T; sent: RecordedRequest[] }> {
  const from = fake.requests.length;
  const result = await fn();
  return { result, sent: fake.requests.slice(from) };
}

function expectUsage(prompt: number | undefined, completion: number | undefined, total: number | undefined) {
  expect(Number.isInteger(prompt) && prompt! > 0, `prompt tokens ${prompt}`).toBe(true);
  expect(Number.isInteger(completion) && completion! > 0, `completion tokens ${completion}`).toBe(true);
  expect(total).toBe(prompt! + completion!);
}

/**
 * What one call sent upstream: nothing for local models; otherwise one request with the upstream
 * model id, the key, system messages lifted into one, and the fields in that provider's naming.
 * Anthropic is checked without top_p, since newer Claude models refuse temperature and top_p
 * together.
 */
function expectUpstream(
  target: Target,
  sent: RecordedRequest[],
  want: { system?: string; stream: boolean; openai?: Record<string, unknown>; anthropic?: Record<string, unknown> },
): any {
  if (target.wire === "local") {
    expect(sent).toHaveLength(0);
    return undefined;
  }
  expect(sent).toHaveLength(1);
  const req = sent[0]!;
  const body = req.body;
  expect(body.model).toBe(target.upstreamId);
  if (target.wire === "openai") {
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe(`Bearer ${UPSTREAM_OPENAI_KEY}`);
    const systems = body.messages.filter((m: any) => m.role === "system" || m.role === "developer");
    if (want.system === undefined) expect(systems).toHaveLength(0);
    else {
      expect(systems).toHaveLength(1);
      expect(body.messages[0]).toEqual({ role: "system", content: want.system });
    }
    expect(body.stream).toBe(want.stream);
    if (want.stream) expect(body.stream_options).toEqual({ include_usage: true });
    // The client's cap goes out in the field the provider honours: max_completion_tokens for
    // OpenAI's own API (every openai-wire target here), never both fields.
    const { max_tokens: cap, ...fields } = want.openai ?? {};
    expect(body).toMatchObject(cap === undefined ? fields : { ...fields, max_completion_tokens: cap });
    if (cap !== undefined) expect(body).not.toHaveProperty("max_tokens");
  } else {
    expect(req.path).toBe("/v1/messages");
    expect(req.headers["x-api-key"]).toBe(UPSTREAM_ANTHROPIC_KEY);
    expect(req.headers["anthropic-version"]).toBeTruthy();
    expect(body.system).toBe(want.system);
    expect(body.messages.every((m: any) => m.role === "user" || m.role === "assistant")).toBe(true);
    expect(body.stream === true).toBe(want.stream);
    expect(body).toMatchObject(want.anthropic ?? {});
  }
  return body;
}

/** The tool definition as each provider protocol spells it. */
function expectWeatherToolSent(target: Target, body: any) {
  if (target.wire === "openai") {
    expect(body.tools).toEqual([
      {
        type: "function",
        function: expect.objectContaining({
          name: "get_weather",
          description: "Current weather in a city",
          parameters: expect.objectContaining({ required: ["city"] }),
        }),
      },
    ]);
  } else if (target.wire === "anthropic") {
    expect(body.tools).toEqual([
      {
        name: "get_weather",
        description: "Current weather in a city",
        input_schema: expect.objectContaining({ type: "object", required: ["city"] }),
      },
    ]);
  }
}

/** The second leg of a tool call: the assistant's call and its result, in the provider's protocol. */
function expectToolResultSent(target: Target, body: any, callId: string) {
  if (target.wire === "openai") {
    const assistant = body.messages.find((m: any) => m.role === "assistant");
    expect(assistant.tool_calls).toEqual([
      expect.objectContaining({
        id: callId,
        type: "function",
        function: expect.objectContaining({ name: "get_weather" }),
      }),
    ]);
    expect(JSON.parse(assistant.tool_calls[0].function.arguments)).toEqual({ city: "Paris" });
    expect(body.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: callId });
    expect(JSON.parse(body.messages.at(-1).content)).toEqual(WEATHER);
  } else if (target.wire === "anthropic") {
    const assistant = body.messages.find((m: any) => m.role === "assistant");
    expect(assistant.content).toContainEqual({
      type: "tool_use",
      id: callId,
      name: "get_weather",
      input: { city: "Paris" },
    });
    expect(body.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: callId, content: expect.any(String) }],
    });
    expect(JSON.parse(body.messages.at(-1).content[0].content)).toEqual(WEATHER);
  }
}

/** The reply each target gives to a plain user message. */
function expectPlainReply(target: Target, text: string, userText: string) {
  if (target.wire === "local") {
    expect(text).toContain(`You said: "${userText}"`);
    expect(text).toContain("offline local model");
  } else expect(text).toBe(`Echo from ${target.upstreamId}: ${userText}`);
}

describe("official openai client", () => {
  const client = () => new OpenAI({ baseURL, apiKey, maxRetries: 0 });

  it("models.list() shows the local models and every provider group", async () => {
    const ids = new Map<string, string>();
    for await (const m of client().models.list()) ids.set(m.id, m.owned_by);
    expect(ids.get("local-chat-latest")).toBe("local");
    expect(ids.get("local-mini")).toBe("local");
    expect(ids.get("gpt-4.1-mini")).toBe("openai");
    expect(ids.get("claude-haiku-4-5")).toBe("anthropic");
    expect(ids.get("or-claude-haiku-4-5")).toBe("openrouter");
    for (const group of ["local", "openai", "openrouter", "google", "anthropic"])
      expect([...ids.values()]).toContain(group);
    const one = await client().models.retrieve("local-chat-latest");
    expect(one).toMatchObject({ id: "local-chat-latest", object: "model", owned_by: "local" });
  });

  it("a claude- slug the company has not enabled is a 400 naming its or- replacement", async () => {
    const other = await makeCompany(db, { creditsOt: 100 });
    const key = (await makeKey(db, { companyId: other.id })).secret;
    const call = new OpenAI({ baseURL, apiKey: key, maxRetries: 0 }).chat.completions.create({
      model: "claude-haiku-4-5",
      messages: [{ role: "user", content: "hi" }],
    });
    await expect(call).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(call).rejects.toThrow(/or-claude-haiku-4-5/);
  });

  describe.each(TARGETS)("→ $slug", (target) => {
    const userText = "What is the capital of France?";
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "system", content: "You are terse." },
      { role: "user", content: userText },
      // A later system message is lifted too, after the first (SPEC rule 1).
      { role: "system", content: "Answer in English." },
    ];
    const sampling = { temperature: 0.3, top_p: 0.9, max_tokens: 200, seed: 7, stop: ["\n\n\n"], user: "end-user-42" };
    const system = "You are terse.\n\nAnswer in English.";

    it("chat.completions.create, non-streaming", async () => {
      const { result: res, sent } = await capture(() =>
        client().chat.completions.create({ model: target.slug, messages, ...sampling }),
      );
      expect(res.object).toBe("chat.completion");
      expect(res.id).toMatch(/^chatcmpl-/);
      expect(res.model).toBe(target.slug);
      expect(res.choices[0]!.finish_reason).toBe("stop");
      expectPlainReply(target, res.choices[0]!.message.content!, userText);
      expectUsage(res.usage?.prompt_tokens, res.usage?.completion_tokens, res.usage?.total_tokens);
      expect(Number.isInteger(res.usage?.prompt_tokens_details?.cached_tokens)).toBe(true);
      const body = expectUpstream(target, sent, {
        system,
        stream: false,
        openai: sampling,
        anthropic: {
          temperature: 0.3,
          max_tokens: 200,
          stop_sequences: ["\n\n\n"],
          metadata: { user_id: "end-user-42" },
        },
      });
      if (body)
        expect(body.messages.at(-1)).toEqual({
          role: "user",
          content: target.wire === "openai" ? userText : [{ type: "text", text: userText }],
        });
    });

    it("streams chunks that reassemble the answer, then a usage chunk", async () => {
      const { result: chunks, sent } = await capture(async () => {
        const stream = await client().chat.completions.create({
          model: target.slug,
          messages,
          ...sampling,
          stream: true,
          stream_options: { include_usage: true },
        });
        const all: OpenAI.ChatCompletionChunk[] = [];
        for await (const chunk of stream) all.push(chunk);
        return all;
      });
      const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
      expectPlainReply(target, text, userText);
      expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(1);
      for (const c of chunks) expect(c.model).toBe(target.slug);
      expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
      expect(chunks.some((c) => c.choices[0]?.finish_reason === "stop")).toBe(true);
      const last = chunks.at(-1)!;
      expect(last.choices).toEqual([]);
      expectUsage(last.usage?.prompt_tokens, last.usage?.completion_tokens, last.usage?.total_tokens);
      for (const c of chunks.slice(0, -1)) expect(c.usage ?? null).toBeNull();
      expectUpstream(target, sent, {
        system,
        stream: true,
        openai: sampling,
        anthropic: { temperature: 0.3, max_tokens: 200 },
      });
    });

    it("calls a function tool, then answers with its result", async () => {
      const tools: OpenAI.ChatCompletionTool[] = [
        {
          type: "function",
          function: { name: "get_weather", description: "Current weather in a city", parameters: WEATHER_PARAMETERS },
        },
      ];
      const ask: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: CALL_PROMPT }];
      const first = await capture(() =>
        client().chat.completions.create({ model: target.slug, messages: ask, tools, tool_choice: "auto" }),
      );
      const choice = first.result.choices[0]!;
      expect(first.result.model).toBe(target.slug);
      expect(choice.finish_reason).toBe("tool_calls");
      const call = choice.message.tool_calls?.[0];
      if (call?.type !== "function") throw new Error(`expected a function call, got ${JSON.stringify(choice.message)}`);
      expect(call.function.name).toBe("get_weather");
      expect(JSON.parse(call.function.arguments)).toEqual({ city: "Paris" });
      expectUsage(
        first.result.usage?.prompt_tokens,
        first.result.usage?.completion_tokens,
        first.result.usage?.total_tokens,
      );
      const firstBody = expectUpstream(target, first.sent, {
        stream: false,
        openai: { tool_choice: "auto" },
        anthropic: { tool_choice: { type: "auto" } },
      });
      expectWeatherToolSent(target, firstBody);

      const second = await capture(() =>
        client().chat.completions.create({
          model: target.slug,
          tools,
          messages: [...ask, choice.message, { role: "tool", tool_call_id: call.id, content: WEATHER_JSON }],
        }),
      );
      expect(second.result.choices[0]!.finish_reason).toBe("stop");
      expect(second.result.choices[0]!.message.content).toContain(WEATHER_JSON);
      expectToolResultSent(target, expectUpstream(target, second.sent, { stream: false }), call.id);
    });

    it("streams a tool call as deltas", async () => {
      const tools: OpenAI.ChatCompletionTool[] = [
        {
          type: "function",
          function: { name: "get_weather", description: "Current weather in a city", parameters: WEATHER_PARAMETERS },
        },
      ];
      const { result: chunks, sent } = await capture(async () => {
        const stream = await client().chat.completions.create({
          model: target.slug,
          messages: [{ role: "user", content: CALL_PROMPT }],
          tools,
          stream: true,
        });
        const all: OpenAI.ChatCompletionChunk[] = [];
        for await (const chunk of stream) all.push(chunk);
        return all;
      });
      const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
      expect(deltas[0]).toMatchObject({
        index: 0,
        id: expect.any(String),
        type: "function",
        function: { name: "get_weather" },
      });
      expect(JSON.parse(deltas.map((d) => d.function?.arguments ?? "").join(""))).toEqual({ city: "Paris" });
      expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("tool_calls");
      for (const c of chunks) expect(c.model).toBe(target.slug);
      expectWeatherToolSent(target, expectUpstream(target, sent, { stream: true }));
    });

    it("image parts (data: URI PNG and https URL): the local model counts them; providers receive them", async () => {
      const dataUri = `data:image/png;base64,${PNG_1PX}`;
      const httpsUrl = "https://images.example.com/cat.png";
      const ask = (urls: string[]) =>
        client().chat.completions.create({
          model: target.slug,
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: "What is in these pictures?" },
                ...urls.map((url) => ({ type: "image_url" as const, image_url: { url } })),
              ],
            },
          ],
        });
      const one = await capture(() => ask([dataUri]));
      const two = await capture(() => ask([dataUri, httpsUrl]));
      expect(two.result.model).toBe(target.slug);
      expectUsage(two.result.usage?.prompt_tokens, two.result.usage?.completion_tokens, two.result.usage?.total_tokens);
      if (target.wire === "local") {
        expect(one.result.choices[0]!.message.content).toContain("1 image");
        expect(two.result.choices[0]!.message.content).toContain("2 images");
        return;
      }
      const body = expectUpstream(target, two.sent, { stream: false });
      const parts = body.messages.at(-1).content;
      if (target.wire === "openai") {
        expect(parts).toEqual([
          { type: "text", text: "What is in these pictures?" },
          { type: "image_url", image_url: { url: dataUri } },
          { type: "image_url", image_url: { url: httpsUrl } },
        ]);
      } else {
        expect(parts).toEqual([
          { type: "text", text: "What is in these pictures?" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1PX } },
          { type: "image", source: { type: "url", url: httpsUrl } },
        ]);
      }
      expect(one.sent).toHaveLength(1);
    });
  });
});

describe("Vercel AI SDK (@ai-sdk/openai-compatible)", () => {
  // includeUsage: the provider asks for stream usage only when told to, as OpenAI's API does.
  const provider = () => createOpenAICompatible({ name: "cockpit", baseURL, apiKey, includeUsage: true });
  const system = "You are terse.";
  const prompt = "Name three primary colours.";
  const settings = {
    temperature: 0.4,
    topP: 0.8,
    maxOutputTokens: 150,
    seed: 3,
    stopSequences: ["END"],
    maxRetries: 0,
  };
  const openaiFields = { temperature: 0.4, top_p: 0.8, max_tokens: 150, seed: 3, stop: ["END"] };
  const anthropicFields = { temperature: 0.4, max_tokens: 150, stop_sequences: ["END"] };

  describe.each(TARGETS)("→ $slug", (target) => {
    it("generateText", async () => {
      const { result, sent } = await capture(() =>
        generateText({ model: provider()(target.slug), system, prompt, ...settings }),
      );
      expectPlainReply(target, result.text, prompt);
      expect(result.finishReason).toBe("stop");
      expect(result.response.modelId).toBe(target.slug);
      expectUsage(result.usage.inputTokens, result.usage.outputTokens, result.usage.totalTokens);
      expectUpstream(target, sent, { system, stream: false, openai: openaiFields, anthropic: anthropicFields });
    });

    it("streamText: textStream and the final usage", async () => {
      const { result, sent } = await capture(async () => {
        const errors: unknown[] = [];
        const stream = streamText({
          model: provider()(target.slug),
          system,
          prompt,
          ...settings,
          onError: ({ error }) => void errors.push(error),
        });
        const parts: string[] = [];
        for await (const t of stream.textStream) parts.push(t);
        return {
          parts,
          errors,
          usage: await stream.usage,
          response: await stream.response,
          finishReason: await stream.finishReason,
        };
      });
      expect(result.errors).toEqual([]);
      expect(result.parts.length).toBeGreaterThan(1);
      expectPlainReply(target, result.parts.join(""), prompt);
      expect(result.finishReason).toBe("stop");
      expect(result.response.modelId).toBe(target.slug);
      expectUsage(result.usage.inputTokens, result.usage.outputTokens, result.usage.totalTokens);
      expectUpstream(target, sent, { system, stream: true, openai: openaiFields, anthropic: anthropicFields });
    });

    it("a tool() call: the SDK runs it and the model answers with the result", async () => {
      const executed: unknown[] = [];
      const { result, sent } = await capture(() =>
        generateText({
          model: provider()(target.slug),
          prompt: CALL_PROMPT,
          maxRetries: 0,
          tools: {
            get_weather: tool({
              description: "Current weather in a city",
              inputSchema: z.object({ city: z.string().describe("City name") }),
              execute: async ({ city }) => (executed.push(city), { city, temp_c: 21 }),
            }),
          },
          stopWhen: stepCountIs(3),
        }),
      );
      expect(executed).toEqual(["Paris"]);
      expect(result.steps).toHaveLength(2);
      expect(result.steps[0]!.toolCalls).toEqual([
        expect.objectContaining({ toolName: "get_weather", input: { city: "Paris" } }),
      ]);
      expect(result.text).toContain(WEATHER_JSON);
      expect(result.response.modelId).toBe(target.slug);
      expectUsage(result.totalUsage.inputTokens, result.totalUsage.outputTokens, result.totalUsage.totalTokens);
      if (target.wire === "local") return expect(sent).toHaveLength(0);
      expect(sent).toHaveLength(2);
      expectWeatherToolSent(target, expectUpstream(target, sent.slice(0, 1), { stream: false }));
      const callId = result.steps[0]!.toolCalls[0]!.toolCallId;
      expectToolResultSent(target, expectUpstream(target, sent.slice(1), { stream: false }), callId);
    });

    it("streamText with a tool(): the streamed call runs and the next step streams the answer", async () => {
      const { result, sent } = await capture(async () => {
        const stream = streamText({
          model: provider()(target.slug),
          prompt: CALL_PROMPT,
          maxRetries: 0,
          tools: {
            get_weather: tool({
              description: "Current weather in a city",
              inputSchema: z.object({ city: z.string().describe("City name") }),
              execute: async ({ city }) => ({ city, temp_c: 21 }),
            }),
          },
          stopWhen: stepCountIs(3),
        });
        let text = "";
        for await (const t of stream.textStream) text += t;
        return { text, steps: await stream.steps, usage: await stream.totalUsage };
      });
      expect(result.steps).toHaveLength(2);
      expect(result.steps[0]!.toolCalls).toEqual([
        expect.objectContaining({ toolName: "get_weather", input: { city: "Paris" } }),
      ]);
      expect(result.text).toContain(WEATHER_JSON);
      expectUsage(result.usage.inputTokens, result.usage.outputTokens, result.usage.totalTokens);
      if (target.wire !== "local") {
        expect(sent).toHaveLength(2);
        expect(sent.every((r) => r.body.stream === true)).toBe(true);
      }
    });
  });
});

describe("LangChain ChatOpenAI (@langchain/openai)", () => {
  const chat = (slug: string) =>
    new ChatOpenAI({
      model: slug,
      apiKey,
      configuration: { baseURL },
      temperature: 0.2,
      topP: 0.7,
      maxTokens: 120,
      maxRetries: 0,
    });
  const system = "You are a helpful assistant.";
  const question = "Why is the sky blue?";
  const input = () => [new SystemMessage(system), new HumanMessage(question)];
  const openaiFields = { temperature: 0.2, top_p: 0.7, max_tokens: 120 };
  const anthropicFields = { temperature: 0.2, max_tokens: 120 };

  describe.each(TARGETS)("→ $slug", (target) => {
    it("invoke", async () => {
      const { result: msg, sent } = await capture(() => chat(target.slug).invoke(input()));
      expect(typeof msg.content).toBe("string");
      expectPlainReply(target, msg.content as string, question);
      expect(msg.response_metadata.model_name).toBe(target.slug);
      expect(msg.response_metadata.finish_reason).toBe("stop");
      const u = msg.usage_metadata;
      expectUsage(u?.input_tokens, u?.output_tokens, u?.total_tokens);
      expectUpstream(target, sent, { system, stream: false, openai: openaiFields, anthropic: anthropicFields });
    });

    it("stream", async () => {
      const { result, sent } = await capture(async () => {
        let full: AIMessageChunk | undefined;
        let count = 0;
        for await (const chunk of await chat(target.slug).stream(input())) {
          count++;
          full = full ? full.concat(chunk) : chunk;
        }
        return { full: full!, count };
      });
      expect(result.count).toBeGreaterThan(2);
      expectPlainReply(target, result.full.content as string, question);
      expect(result.full.response_metadata.model_name).toBe(target.slug);
      const u = result.full.usage_metadata;
      expectUsage(u?.input_tokens, u?.output_tokens, u?.total_tokens);
      expectUpstream(target, sent, { system, stream: true, openai: openaiFields, anthropic: anthropicFields });
    });

    it("bindTools: the AIMessage carries parsed tool_calls; a ToolMessage gets the final answer", async () => {
      const bound = chat(target.slug).bindTools([
        {
          type: "function",
          function: { name: "get_weather", description: "Current weather in a city", parameters: WEATHER_PARAMETERS },
        },
      ]);
      const human = new HumanMessage(CALL_PROMPT);
      const first = await capture(() => bound.invoke([human]));
      const ai = first.result;
      expect(ai.tool_calls).toEqual([
        expect.objectContaining({ name: "get_weather", args: { city: "Paris" }, id: expect.any(String) }),
      ]);
      expect(ai.response_metadata.model_name).toBe(target.slug);
      expectWeatherToolSent(target, expectUpstream(target, first.sent, { stream: false }));

      const callId = ai.tool_calls![0]!.id!;
      const second = await capture(() =>
        bound.invoke([human, ai, new ToolMessage({ tool_call_id: callId, content: WEATHER_JSON })]),
      );
      expect(second.result.content).toContain(WEATHER_JSON);
      const u = second.result.usage_metadata;
      expectUsage(u?.input_tokens, u?.output_tokens, u?.total_tokens);
      expectToolResultSent(target, expectUpstream(target, second.sent, { stream: false }), callId);
    });
  });

  it("a reasoning slug (gpt-5-mini): the `developer` message LangChain sends is lifted like a system message", async () => {
    const llm = new ChatOpenAI({
      model: "gpt-5-mini",
      apiKey,
      configuration: { baseURL },
      maxTokens: 120,
      maxRetries: 0,
    });
    const { result: msg, sent } = await capture(() => llm.invoke(input()));
    expect(msg.content).toBe(`Echo from gpt-5-mini: ${question}`);
    expect(msg.response_metadata.model_name).toBe("gpt-5-mini");
    const body = expectUpstream({ slug: "gpt-5-mini", wire: "openai", upstreamId: "gpt-5-mini" }, sent, {
      system,
      stream: false,
      openai: { max_completion_tokens: 120 },
    });
    expect(body.messages).toEqual([
      { role: "system", content: system },
      { role: "user", content: question },
    ]);
  });
});
