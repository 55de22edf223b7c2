import { describe, expect, it } from "vitest";
import { messageEvents, toAnthropicMessage } from "./to-message";

const answer = (over: Partial<Parameters<typeof toAnthropicMessage>[0]> = {}) => ({
  responseId: "msg_1",
  requestedModel: "local-chat",
  content: "",
  toolCalls: [],
  finishReason: "stop",
  usage: { promptTokens: 30, completionTokens: 7, cachedTokens: 10 },
  appliedRules: [],
  ...over,
});

describe("toAnthropicMessage", () => {
  it("answers text with end_turn and usage split as Anthropic counts it (cache reads apart)", () => {
    expect(toAnthropicMessage(answer({ content: "Hello" }))).toEqual({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "local-chat",
      content: [{ type: "text", text: "Hello" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 20, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 10 },
    });
  });

  it("answers tool calls as tool_use blocks with parsed input and stop_reason tool_use", () => {
    const m = toAnthropicMessage(
      answer({
        finishReason: "tool_calls",
        toolCalls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
        ],
      }),
    );
    expect(m.content).toEqual([{ type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Oslo" } }]);
    expect(m.stop_reason).toBe("tool_use");
    expect(toAnthropicMessage(answer({ finishReason: "length", content: "x" })).stop_reason).toBe("max_tokens");
    expect(toAnthropicMessage(answer({ finishReason: "content_filter", content: "no" })).stop_reason).toBe("refusal");
  });
});

describe("messageEvents", () => {
  it("streams text then tool calls as blocks, and the stop reason with the final usage at the end", () => {
    const ctx = answer();
    const ev = messageEvents(ctx, () => 30);
    const frames = [
      ...ev.start(),
      ...ev.chunk({ content: "Let me " }),
      ...ev.chunk({ content: "check." }),
      ...ev.chunk({
        toolCalls: [{ index: 0, id: "call_1", type: "function", function: { name: "a", arguments: "" } }],
      }),
      ...ev.chunk({ toolCalls: [{ index: 0, function: { arguments: '{"x":' } }] }),
      ...ev.chunk({ toolCalls: [{ index: 0, function: { arguments: "1}" } }] }),
      ...ev.chunk({ toolCalls: [{ index: 1, id: "call_2", function: { name: "b", arguments: "{}" } }] }),
      ...ev.finish(),
    ];
    Object.assign(ctx, {
      finishReason: "tool_calls",
      usage: { promptTokens: 30, completionTokens: 9, cachedTokens: 0 },
    });
    frames.push(...ev.end());
    for (const f of frames) expect((f.data as { type: string }).type).toBe(f.event);
    expect(frames.map((f) => f.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const data = frames.map((f) => f.data as any);
    expect(data[0].message).toMatchObject({ id: "msg_1", content: [], stop_reason: null, usage: { input_tokens: 30 } });
    expect(data[2]).toEqual({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    expect(data[3].delta).toEqual({ type: "text_delta", text: "Let me " });
    expect(data[6]).toEqual({
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "call_1", name: "a", input: {} },
    });
    expect(data[7].delta).toEqual({ type: "input_json_delta", partial_json: '{"x":' });
    expect(data[10].content_block).toMatchObject({ id: "call_2", name: "b" });
    expect(data[12]).toEqual({ type: "content_block_stop", index: 2 });
    expect(data[13]).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 30, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  it("ends a failed stream with an error event", () => {
    const ev = messageEvents(answer(), () => 0);
    const body = { type: "error", error: { type: "api_error", message: "x" } };
    expect(ev.error(body)).toEqual([{ event: "error", data: body }]);
  });
});
