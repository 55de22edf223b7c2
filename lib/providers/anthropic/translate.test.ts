import { describe, expect, it } from "vitest";
import type { ChatChunk, ChatRequest } from "../types";
import {
  anthropicStreamTranslator,
  finishReason,
  fromAnthropicResponse,
  fromAnthropicUsage,
  toAnthropicRequest,
  type AnthropicStreamEvent,
} from "./translate";

const request = (over: Partial<ChatRequest>): ChatRequest => ({
  model: "claude-haiku-4-5",
  messages: [],
  params: {},
  ...over,
});

const weather = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Weather by city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

describe("toAnthropicRequest", () => {
  it("lifts system and developer messages into `system` and keeps user/assistant turns", () => {
    const body = toAnthropicRequest(
      request({
        messages: [
          { role: "system", content: "Be brief." },
          { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
          { role: "user", content: "Hi" },
          { role: "assistant", content: "Bonjour" },
          { role: "user", content: "Weather?" },
        ],
      }),
      false,
    );
    expect(body.system).toBe("Be brief.\n\nAnswer in French.");
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Hi" }] },
      { role: "assistant", content: [{ type: "text", text: "Bonjour" }] },
      { role: "user", content: [{ type: "text", text: "Weather?" }] },
    ]);
    expect(body).not.toHaveProperty("stream");
    expect(toAnthropicRequest(request({ messages: [{ role: "user", content: "x" }] }), true).stream).toBe(true);
  });

  it("omits `system` when there is none", () => {
    expect(toAnthropicRequest(request({ messages: [{ role: "user", content: "Hi" }] }), false)).not.toHaveProperty(
      "system",
    );
  });

  it("turns data: URIs into base64 image sources and https URLs into url sources", () => {
    const body = toAnthropicRequest(
      request({
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "Compare" },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
              { type: "image_url", image_url: { url: "https://example.com/cat.jpg", detail: "low" } },
            ],
          },
        ],
      }),
      false,
    );
    expect(body.messages[0]!.content).toEqual([
      { type: "text", text: "Compare" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
    ]);
  });

  it("turns assistant tool_calls into tool_use blocks and tool messages into tool_result in a user turn", () => {
    const body = toAnthropicRequest(
      request({
        tools: [weather],
        messages: [
          { role: "user", content: "Weather in Paris and Rome?" },
          {
            role: "assistant",
            content: "Let me check.",
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
              { id: "call_2", type: "function", function: { name: "get_weather", arguments: "" } },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: '{"temp":21}' },
          { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "sunny" }] },
        ],
      }),
      false,
    );
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Paris and Rome?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "call_2", name: "get_weather", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_1", content: '{"temp":21}' },
          { type: "tool_result", tool_use_id: "call_2", content: "sunny" },
        ],
      },
    ]);
  });

  it("an assistant turn with only tool calls (content null) has only tool_use blocks; unparsable arguments become {}", () => {
    const body = toAnthropicRequest(
      request({
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{not json" } }],
          },
        ],
      }),
      false,
    );
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "tool_use", id: "c", name: "f", input: {} }],
    });
  });

  it("merges consecutive same-role messages into one turn", () => {
    const body = toAnthropicRequest(
      request({
        messages: [
          { role: "user", content: "one" },
          { role: "user", content: "two" },
          { role: "assistant", content: "a" },
          { role: "assistant", content: "b" },
          { role: "tool", tool_call_id: "t", content: "r" },
          { role: "user", content: "three" },
        ],
      }),
      false,
    );
    expect(body.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(body.messages[0]!.content).toHaveLength(2);
    expect(body.messages[1]!.content).toHaveLength(2);
    expect(body.messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "t", content: "r" },
      { type: "text", text: "three" },
    ]);
  });

  it("drops empty messages instead of sending empty turns", () => {
    const body = toAnthropicRequest(
      request({
        messages: [
          { role: "user", content: "" },
          { role: "user", content: "hi" },
        ],
      }),
      false,
    );
    expect(body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  });

  it("maps tools to input_schema and each tool_choice form", () => {
    const bare = { type: "function" as const, function: { name: "ping" } };
    const body = toAnthropicRequest(
      request({ messages: [{ role: "user", content: "x" }], tools: [weather, bare] }),
      false,
    );
    expect(body.tools).toEqual([
      { name: "get_weather", description: "Weather by city", input_schema: weather.function.parameters },
      { name: "ping", description: undefined, input_schema: { type: "object", properties: {} } },
    ]);
    expect(body).not.toHaveProperty("tool_choice");

    const choice = (toolChoice: unknown) =>
      toAnthropicRequest(request({ messages: [{ role: "user", content: "x" }], tools: [weather], toolChoice }), false);
    expect(choice("auto").tool_choice).toEqual({ type: "auto" });
    expect(choice("required").tool_choice).toEqual({ type: "any" });
    expect(choice({ type: "function", function: { name: "get_weather" } }).tool_choice).toEqual({
      type: "tool",
      name: "get_weather",
    });
    // "none": tools stay defined (earlier tool_use blocks need them) but may not be called.
    expect(choice("none")).toHaveProperty("tools");
    expect(choice("none")).toMatchObject({ tool_choice: { type: "none" } });
  });

  it("parallel_tool_calls: false disables parallel tool use", () => {
    const body = toAnthropicRequest(
      request({
        messages: [{ role: "user", content: "x" }],
        tools: [weather],
        toolChoice: "required",
        params: { parallel_tool_calls: false },
      }),
      false,
    );
    expect(body.tool_choice).toEqual({ type: "any", disable_parallel_tool_use: true });
    const auto = toAnthropicRequest(
      request({ messages: [{ role: "user", content: "x" }], tools: [weather], params: { parallel_tool_calls: false } }),
      false,
    );
    expect(auto.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
  });

  it("defaults max_tokens (required by Anthropic) and uses the request's cap when given", () => {
    expect(toAnthropicRequest(request({ messages: [{ role: "user", content: "x" }] }), false).max_tokens).toBe(4096);
    expect(
      toAnthropicRequest(request({ messages: [{ role: "user", content: "x" }], maxOutputTokens: 77 }), false)
        .max_tokens,
    ).toBe(77);
  });

  it("maps stop to stop_sequences, user to metadata.user_id, and clamps temperature to Anthropic's 0–1", () => {
    const one = toAnthropicRequest(
      request({
        messages: [{ role: "user", content: "x" }],
        params: { stop: "END", temperature: 1.7, top_p: 0.9, user: "u-42" },
      }),
      false,
    );
    expect(one.stop_sequences).toEqual(["END"]);
    expect(one.temperature).toBe(1);
    // Both set: only temperature goes (newer Claude models refuse the pair).
    expect(one).not.toHaveProperty("top_p");
    expect(
      toAnthropicRequest(request({ messages: [{ role: "user", content: "x" }], params: { top_p: 0.9 } }), false).top_p,
    ).toBe(0.9);
    expect(one.metadata).toEqual({ user_id: "u-42" });
    const many = toAnthropicRequest(
      request({ messages: [{ role: "user", content: "x" }], params: { stop: ["a", "b"], temperature: 0.2 } }),
      false,
    );
    expect(many.stop_sequences).toEqual(["a", "b"]);
    expect(many.temperature).toBe(0.2);
    expect(toAnthropicRequest(request({ messages: [{ role: "user", content: "x" }] }), false)).not.toHaveProperty(
      "stop_sequences",
    );
  });
});

describe("fromAnthropicResponse", () => {
  it("joins text blocks, maps stop reasons and counts cache reads and writes inside promptTokens", () => {
    const result = fromAnthropicResponse({
      content: [
        { type: "text", text: "Hello " },
        { type: "text", text: "there" },
      ],
      stop_reason: "end_turn",
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 30, cache_creation_input_tokens: 4 },
    });
    expect(result).toEqual({
      content: "Hello there",
      toolCalls: [],
      finishReason: "stop",
      usage: { promptTokens: 44, completionTokens: 5, cachedTokens: 30 },
    });
  });

  it("turns tool_use blocks into tool calls with JSON arguments and content null", () => {
    const result = fromAnthropicResponse({
      content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }],
      stop_reason: "tool_use",
      usage: { input_tokens: 3, output_tokens: 2 },
    });
    expect(result.content).toBeNull();
    expect(result.finishReason).toBe("tool_calls");
    expect(result.toolCalls).toEqual([
      { id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
    ]);
    expect(result.usage).toEqual({ promptTokens: 3, completionTokens: 2, cachedTokens: 0 });
  });

  it("maps every stop reason", () => {
    expect(finishReason("max_tokens")).toBe("length");
    expect(finishReason("tool_use")).toBe("tool_calls");
    expect(finishReason("refusal")).toBe("content_filter");
    expect(finishReason("stop_sequence")).toBe("stop");
    expect(finishReason(null)).toBe("stop");
  });

  it("has no usage when the provider sent none", () => {
    expect(fromAnthropicUsage(undefined)).toBeNull();
    expect(fromAnthropicResponse({ content: [] }).usage).toBeNull();
    expect(fromAnthropicResponse({ content: [] }).content).toBe("");
  });
});

describe("anthropicStreamTranslator", () => {
  const run = (events: AnthropicStreamEvent[]) => {
    const translate = anthropicStreamTranslator();
    return events.map((e) => translate(e.type!, e)).filter((c): c is ChatChunk => c !== null);
  };

  it("translates a text stream with cached input into content chunks and a final usage chunk", () => {
    const chunks = run([
      {
        type: "message_start",
        message: {
          usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 100, cache_creation_input_tokens: 0 },
        },
      },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "ping" },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 7 } },
      { type: "message_stop" },
    ]);
    expect(chunks).toEqual([
      { content: "Hel" },
      { content: "lo" },
      { finishReason: "stop", usage: { promptTokens: 112, completionTokens: 7, cachedTokens: 100 } },
    ]);
  });

  it("translates tool_use blocks and input_json_delta into indexed tool-call deltas", () => {
    const chunks = run([
      { type: "message_start", message: { usage: { input_tokens: 20, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Checking." } },
      { type: "content_block_stop", index: 0 },
      {
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: "toolu_a", name: "get_weather" },
      },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"city":' } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '"Paris"}' } },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_b", name: "get_time" } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: "{}" } },
      { type: "content_block_stop", index: 2 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 30 } },
      { type: "message_stop" },
    ]);
    expect(chunks).toEqual([
      { content: "Checking." },
      { toolCalls: [{ index: 0, id: "toolu_a", type: "function", function: { name: "get_weather", arguments: "" } }] },
      { toolCalls: [{ index: 0, function: { arguments: "" } }] },
      { toolCalls: [{ index: 0, function: { arguments: '{"city":' } }] },
      { toolCalls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
      { toolCalls: [{ index: 1, id: "toolu_b", type: "function", function: { name: "get_time", arguments: "" } }] },
      { toolCalls: [{ index: 1, function: { arguments: "{}" } }] },
      { finishReason: "tool_calls", usage: { promptTokens: 20, completionTokens: 30, cachedTokens: 0 } },
    ]);
  });
});
