import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../types";
import { capFieldFor, fromWireResponse, fromWireUsage, toWireRequest } from "./adapter";

const tool = {
  type: "function" as const,
  function: { name: "lookup", parameters: { type: "object", properties: {} } },
};

describe("toWireRequest", () => {
  const req: ChatRequest = {
    model: "openai/gpt-5",
    messages: [
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "Hi" },
          { type: "image_url", image_url: { url: "https://example.com/a.png" } },
        ],
      },
    ],
    params: {
      temperature: 0.3,
      top_p: 0.8,
      stop: ["END"],
      seed: 7,
      user: "u1",
      response_format: { type: "json_object" },
      parallel_tool_calls: false,
    },
    maxOutputTokens: 50,
    passages: [{ text: "not sent as a field" }],
    imageNotes: ["not sent either"],
  };

  it("sends the upstream model id, the messages and every passthrough field unchanged", () => {
    expect(toWireRequest(req, false)).toEqual({
      model: "openai/gpt-5",
      messages: req.messages,
      temperature: 0.3,
      top_p: 0.8,
      max_tokens: 50,
      stop: ["END"],
      seed: 7,
      user: "u1",
      response_format: { type: "json_object" },
      parallel_tool_calls: false,
      stream: false,
    });
  });

  it("sends the output cap the hold covers in the field the provider honours, exactly one of the two", () => {
    const withStray = { ...req, params: { ...req.params, max_tokens: 9999, max_completion_tokens: 9999 } };
    expect(toWireRequest(withStray, false, "max_completion_tokens")).toMatchObject({ max_completion_tokens: 50 });
    expect(toWireRequest(withStray, false, "max_completion_tokens")).not.toHaveProperty("max_tokens");
    expect(toWireRequest(withStray, false, "max_tokens")).toMatchObject({ max_tokens: 50 });
    expect(toWireRequest(withStray, false, "max_tokens")).not.toHaveProperty("max_completion_tokens");
    expect(capFieldFor("openai")).toBe("max_completion_tokens");
    for (const g of ["deepseek", "mistral", "openrouter", "google"]) expect(capFieldFor(g)).toBe("max_tokens");
  });

  it("asks for usage in streams so partial and streamed calls bill from the provider's counts", () => {
    expect(toWireRequest(req, true)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("passes tools and tool_choice only when given", () => {
    expect(toWireRequest({ ...req, tools: [tool], toolChoice: "required" }, false)).toMatchObject({
      tools: [tool],
      tool_choice: "required",
    });
    const plain = toWireRequest({ ...req, tools: [] }, false);
    expect(plain).not.toHaveProperty("tools");
    expect(plain).not.toHaveProperty("tool_choice");
  });

  it("never lets a passthrough param override the model, messages or stream flag", () => {
    const body = toWireRequest({ ...req, params: { model: "other", messages: [], stream: true } }, false);
    expect(body.model).toBe("openai/gpt-5");
    expect(body.messages).toBe(req.messages);
    expect(body.stream).toBe(false);
  });
});

describe("fromWireUsage", () => {
  it("keeps cached tokens inside prompt tokens, as OpenAI reports them", () => {
    expect(
      fromWireUsage({ prompt_tokens: 100, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 64 } }),
    ).toEqual({
      promptTokens: 100,
      completionTokens: 20,
      cachedTokens: 64,
    });
  });

  it("tolerates missing details and returns null without a prompt count", () => {
    expect(fromWireUsage({ prompt_tokens: 5, prompt_tokens_details: null })).toEqual({
      promptTokens: 5,
      completionTokens: 0,
      cachedTokens: 0,
    });
    expect(fromWireUsage({ completion_tokens: 5 })).toBeNull();
    expect(fromWireUsage(null)).toBeNull();
    expect(fromWireUsage(undefined)).toBeNull();
  });
});

describe("fromWireResponse", () => {
  it("reads the first choice's text, finish reason and usage", () => {
    expect(
      fromWireResponse({
        choices: [{ message: { content: "Hello" }, finish_reason: "length" }],
        usage: { prompt_tokens: 9, completion_tokens: 1 },
      }),
    ).toEqual({
      content: "Hello",
      toolCalls: [],
      finishReason: "length",
      usage: { promptTokens: 9, completionTokens: 1, cachedTokens: 0 },
    });
  });

  it("reads tool calls with null content", () => {
    const call = { id: "call_1", type: "function" as const, function: { name: "lookup", arguments: '{"q":"x"}' } };
    const result = fromWireResponse({
      choices: [{ message: { content: null, tool_calls: [call] }, finish_reason: "tool_calls" }],
    });
    expect(result).toEqual({ content: null, toolCalls: [call], finishReason: "tool_calls", usage: null });
  });

  it("defaults a missing finish reason to stop and an empty body to no content", () => {
    expect(fromWireResponse({})).toEqual({ content: null, toolCalls: [], finishReason: "stop", usage: null });
  });
});
