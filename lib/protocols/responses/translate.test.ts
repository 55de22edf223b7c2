import { describe, expect, it } from "vitest";
import { splitToolChoice, toChatMessages, toClientTools } from "./input";
import {
  functionCallItemId,
  messageIdOfItem,
  responseStatus,
  toItems,
  toResponseObject,
  toResponseUsage,
} from "./output";
import { responseEvents } from "./stream-events";

describe("toChatMessages", () => {
  it("a string is one user message", () => {
    expect(toChatMessages("hi")).toEqual({ instructions: [], messages: [{ role: "user", content: "hi" }] });
  });

  it("lifts system and developer items, joins function calls to the assistant turn, maps outputs to tool messages", () => {
    const out = toChatMessages([
      { role: "developer", content: "Be terse." },
      { type: "message", role: "user", content: [{ type: "input_text", text: "weather?" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
      { type: "function_call", call_id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call", call_id: "c2", name: "get_time", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "sunny" },
      { type: "reasoning", summary: [] },
    ]);
    expect(out.instructions).toEqual(["Be terse."]);
    expect(out.messages).toEqual([
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "c2", type: "function", function: { name: "get_time", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "sunny" },
    ]);
  });

  it("keeps system items as messages for a conversation; images become image_url parts", () => {
    const out = toChatMessages(
      [
        { role: "system", content: "rules" },
        {
          role: "user",
          content: [
            { type: "input_text", text: "look" },
            { type: "input_image", image_url: "https://x.test/a.png", detail: "low" },
          ],
        },
      ],
      { liftSystem: false },
    );
    expect(out.messages).toEqual([
      { role: "system", content: "rules" },
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "https://x.test/a.png", detail: "low" } },
        ],
      },
    ]);
  });

  it("an input_image by file_id is refused, naming the field", () => {
    expect(() => toChatMessages([{ role: "user", content: [{ type: "input_image", file_id: "file_1" }] }])).toThrow(
      /file_id/,
    );
  });
});

describe("tools", () => {
  const tools = toClientTools([
    { type: "function", name: "f", parameters: { type: "object" } } as never,
    { type: "web_search" },
  ]);
  it("offers function tools only, in the chat shape", () => {
    expect(tools).toEqual([{ type: "function", function: { name: "f", parameters: { type: "object" } } }]);
  });
  it("tool_choice binds the caller's tools, or the company's when it names another", () => {
    expect(splitToolChoice("required", tools)).toEqual({ toolChoice: "required" });
    expect(splitToolChoice("required", [])).toEqual({ runToolChoice: "required" });
    expect(splitToolChoice("none", tools)).toEqual({ toolChoice: "none", runToolChoice: "none" });
    expect(splitToolChoice({ type: "function", name: "f" }, tools)).toEqual({
      toolChoice: { type: "function", function: { name: "f" } },
    });
    expect(splitToolChoice({ type: "function", name: "lookup" }, tools)).toEqual({
      runToolChoice: { type: "function", function: { name: "lookup" } },
    });
  });
});

describe("items", () => {
  it("function_call item ids lead back to their message", () => {
    expect(functionCallItemId("msg_abc", 0)).toBe("fc_abc");
    expect(functionCallItemId("msg_abc", 2)).toBe("fc_abc_2");
    expect(messageIdOfItem("fc_abc_2")).toEqual({ messageId: "msg_abc", callIndex: 2 });
    expect(messageIdOfItem("msg_abc")).toEqual({ messageId: "msg_abc" });
  });

  it("messages as items: user text, assistant text with calls, tool output", () => {
    expect(toItems({ id: "msg_1", role: "user", content: "hi", extra: {} })).toEqual([
      {
        id: "msg_1",
        type: "message",
        status: "completed",
        role: "user",
        content: [{ type: "input_text", text: "hi" }],
      },
    ]);
    const call = { id: "c1", type: "function", function: { name: "f", arguments: "{}" } };
    expect(toItems({ id: "msg_2", role: "assistant", content: null, extra: { tool_calls: [call] } })).toEqual([
      { id: "fc_2", type: "function_call", status: "completed", call_id: "c1", name: "f", arguments: "{}" },
    ]);
    expect(toItems({ id: "msg_3", role: "tool", content: "ok", extra: { tool_call_id: "c1" } })).toEqual([
      { id: "msg_3", type: "function_call_output", status: "completed", call_id: "c1", output: "ok" },
    ]);
  });
});

describe("response object", () => {
  it("usage in OpenAI's shape; length is incomplete with max_output_tokens", () => {
    expect(toResponseUsage({ promptTokens: 10, completionTokens: 5, cachedTokens: 4 })).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    });
    expect(responseStatus("completed", "length")).toEqual({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
    });
    expect(responseStatus("completed", "stop").status).toBe("completed");
    expect(responseStatus("failed", null).status).toBe("failed");
  });

  it("echoes the request and adds applied_rules and cost_ot", () => {
    const r = toResponseObject({
      id: "resp_1",
      createdAt: 1,
      status: "completed",
      finishReason: "stop",
      model: "m",
      error: null,
      usage: null,
      costOt: 0.5,
      appliedRules: [],
      output: [],
      previousResponseId: null,
      conversationId: null,
      request: { instructions: "x", store: false, metadata: { a: "b" } },
    });
    expect(r).toMatchObject({
      object: "response",
      instructions: "x",
      store: false,
      metadata: { a: "b" },
      conversation: null,
      cost_ot: 0.5,
      applied_rules: [],
    });
  });
});

describe("stream events", () => {
  it("numbers events in order and closes the message before the calls and the terminal event", () => {
    const ev = responseEvents("msg_x");
    const response = toResponseObject({
      id: "resp_1",
      createdAt: 1,
      status: "completed",
      finishReason: "tool_calls",
      model: "m",
      error: null,
      usage: null,
      costOt: 0,
      appliedRules: [],
      output: [],
      previousResponseId: null,
      conversationId: null,
      request: {},
    });
    const all = [
      ...ev.start(response),
      ...ev.delta("He"),
      ...ev.delta("llo"),
      ...ev.end(response, [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }]),
    ];
    expect(all.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(all.map((e) => e.sequence_number)).toEqual(all.map((_, i) => i));
    expect(all[6]).toMatchObject({ text: "Hello" });
    expect(all[9]).toMatchObject({ output_index: 1, item: { id: "fc_x", type: "function_call" } });
  });
});
