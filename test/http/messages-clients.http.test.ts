import { readFileSync } from "node:fs";
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { useGateway } from "../support/gateway";

/**
 * Real Anthropic-protocol clients against POST /v1/messages: the Vercel AI SDK's Anthropic provider
 * (`ai` 6, `@ai-sdk/anthropic` 3), and the requests Claude Code 2.1 sends, replayed from fixtures
 * recorded off the real CLI (test/fixtures/clients/claude-code-*.json, the key replaced). Each call
 * is billed exactly once.
 */
const gw = useGateway({
  fake: {
    toolCall: (body) =>
      body.messages.at(-1)?.role === "tool"
        ? null
        : { name: body.tools[0].function.name, arguments: { city: "Paris" } },
  },
});

const MODELS = ["local-mini", "gpt-4o-mini"] as const;

async function messageEntries(key: string) {
  const res = await gw.call(key, "GET", "/v1/usage");
  expect(res.status).toBe(200);
  return (res.json.data as any[]).filter((e) => e.kind !== "grant");
}

const provider = (apiKey: string) => createAnthropic({ baseURL: `${gw.server.url}/v1`, apiKey });

const weather = tool({
  description: "The weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, temp_c: 21 }),
});

describe.each(MODELS)("@ai-sdk/anthropic on %s", (model) => {
  it("generateText: the answer, usage and one ledger entry", async () => {
    const { key } = await gw.tenant(100);
    const res = await generateText({
      model: provider(key)(model),
      system: "Be brief.",
      prompt: "Say something about deliveries.",
      maxOutputTokens: 100,
    });
    expect(res.text.length).toBeGreaterThan(0);
    expect(res.finishReason).toBe("stop");
    expect(res.usage.outputTokens).toBeGreaterThan(0);
    if (model === "gpt-4o-mini") expect(res.text).toBe("Echo from gpt-4o-mini: Say something about deliveries.");
    const entries = await messageEntries(key);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ source: "messages", model, completion_tokens: res.usage.outputTokens });
  });

  it("streamText: text deltas add up to the answer; one ledger entry", async () => {
    const { key } = await gw.tenant(100);
    const res = streamText({
      model: provider(key)(model),
      prompt: "Tell me about the opening hours of the shop.",
      maxOutputTokens: 100,
    });
    let text = "";
    for await (const piece of res.textStream) text += piece;
    expect(text).toBe(await res.text);
    expect(text.length).toBeGreaterThan(0);
    expect(await res.finishReason).toBe("stop");
    expect(await messageEntries(key)).toHaveLength(1);
  });

  it("a tool loop (generateText with an executed tool): tool_use, tool_result, answer; billed per call", async () => {
    const { key } = await gw.tenant(100);
    const res = await generateText({
      model: provider(key)(model),
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
      prompt: 'Please call get_weather with {"city":"Oslo"}',
      maxOutputTokens: 100,
    });
    expect(res.steps).toHaveLength(2);
    expect(res.steps[0]!.toolCalls).toHaveLength(1);
    expect(res.steps[0]!.toolCalls[0]).toMatchObject({
      toolName: "get_weather",
      input: { city: model === "local-mini" ? "Oslo" : "Paris" },
    });
    expect(res.finishReason).toBe("stop");
    if (model === "local-mini") expect(res.text).toContain('"temp_c":21');
    else {
      const sent = gw.fake.requests[1]!.body;
      expect(sent.messages.at(-1)).toMatchObject({
        role: "tool",
        content: JSON.stringify({ city: "Paris", temp_c: 21 }),
      });
    }
    expect(await messageEntries(key)).toHaveLength(2);
  });

  it("streamText with a tool: the streamed tool call, then the answer", async () => {
    const { key } = await gw.tenant(100);
    const res = streamText({
      model: provider(key)(model),
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
      prompt: 'Please call get_weather with {"city":"Lima"}',
      maxOutputTokens: 100,
    });
    const kinds = new Set<string>();
    for await (const part of res.fullStream) kinds.add(part.type);
    expect(kinds).toContain("tool-call");
    expect(kinds).toContain("tool-result");
    expect(kinds).toContain("text-delta");
    expect((await res.steps).length).toBe(2);
    expect(await messageEntries(key)).toHaveLength(2);
  });
});

/** SSE events of an Anthropic stream: `[event, data]` pairs, the event line matching the payload's type. */
async function anthropicEvents(res: Response): Promise<[string, any][]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((frame) => {
      const m = /^event: (\S+)\ndata: (.*)$/s.exec(frame);
      expect(m, frame).not.toBeNull();
      const data = JSON.parse(m![2]!);
      expect(data.type).toBe(m![1]);
      return [m![1]!, data];
    });
}

/** A recorded Claude Code request, sent as the CLI sent it: its headers, path and body, with a real key. */
async function replay(name: string, key: string, model?: string) {
  const fixture = JSON.parse(readFileSync(`test/fixtures/clients/${name}.json`, "utf8"));
  const headers: Record<string, string> = { ...fixture.headers, authorization: `Bearer ${key}` };
  for (const h of ["host", "connection", "accept-encoding", "content-length"]) delete headers[h];
  const res = await fetch(`${gw.server.url}${fixture.path}`, {
    method: fixture.method,
    headers,
    body: JSON.stringify(model ? { ...fixture.body, model } : fixture.body),
  });
  return { res, fixture };
}

describe("Claude Code 2.1 requests (recorded off the CLI)", () => {
  it("its first turn (system blocks, 24 tools, thinking, betas, ?beta=true): a valid stream, billed once", async () => {
    const { key } = await gw.tenant(100);
    const { res, fixture } = await replay("claude-code-say-hi", key);
    expect(fixture.headers["anthropic-beta"]).toContain("claude-code");
    expect(JSON.stringify(fixture.body).length).toBeGreaterThan(60_000);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = await anthropicEvents(res);
    const names = events.map(([e]) => e);
    expect(names[0]).toBe("message_start");
    expect(names[1]).toBe("ping");
    expect(names.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(names.filter((n) => n === "content_block_start")).toHaveLength(1);
    const start = events[0]![1].message;
    expect(start).toMatchObject({ type: "message", role: "assistant", model: "local-chat-latest", content: [] });
    expect(start.id).toMatch(/^msg_/);
    const text = events
      .filter(([e, d]) => e === "content_block_delta" && d.delta.type === "text_delta")
      .map(([, d]) => d.delta.text)
      .join("");
    expect(text.length).toBeGreaterThan(0);
    const delta = events.at(-2)![1];
    expect(delta.delta.stop_reason).toBe("end_turn");
    expect(delta.usage.output_tokens).toBeGreaterThan(0);
    expect(delta.usage.input_tokens).toBeGreaterThan(1000);

    const entries = await messageEntries(key);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ kind: "completion", source: "messages", model: "local-chat-latest" });
    expect(entries[0].completion_tokens).toBe(delta.usage.output_tokens);
  });

  it("its turn after a tool ran (tool_use, then a tool_result with cache_control): the answer quotes the result", async () => {
    const { key } = await gw.tenant(100);
    const { res } = await replay("claude-code-tool-result", key);
    expect(res.status, await res.clone().text()).toBe(200);
    const events = await anthropicEvents(res);
    const text = events
      .filter(([e, d]) => e === "content_block_delta" && d.delta.type === "text_delta")
      .map(([, d]) => d.delta.text)
      .join("");
    expect(text).toContain("hi");
    expect(events.at(-1)![0]).toBe("message_stop");
    expect(await messageEntries(key)).toHaveLength(1);
  });

  it("the same request against gpt-4o-mini goes upstream as chat completions with its tools", async () => {
    const { key } = await gw.tenant(100);
    const { res, fixture } = await replay("claude-code-tool-result", key, "gpt-4o-mini");
    expect(res.status).toBe(200);
    const events = await anthropicEvents(res);
    expect(events.at(-1)![0]).toBe("message_stop");
    const sent = gw.fake.requests[0]!.body;
    expect(sent.tools).toHaveLength(fixture.body.tools.length);
    expect(sent.messages[0].role).toBe("system");
    expect(sent.messages.slice(-2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "toolu_01A",
            type: "function",
            function: { name: "Bash", arguments: JSON.stringify({ command: "echo hi", description: "Print hi" }) },
          },
        ],
      },
      { role: "tool", tool_call_id: "toolu_01A", content: "hi" },
    ]);
    expect(await messageEntries(key)).toHaveLength(1);
  });
});
