import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CountTokensInput, MessagesInput } from "./schemas";
import { toChatPrompt } from "./to-chat-prompt";

const base = { model: "local-chat", max_tokens: 100 };
const parse = (body: Record<string, unknown>) => toChatPrompt(MessagesInput.parse({ ...base, ...body }));

describe("toChatPrompt", () => {
  it("lifts system (string or text blocks, cache_control ignored) into one instruction layer", () => {
    const p = parse({
      system: [
        { type: "text", text: "You are terse." },
        { type: "text", text: "Answer in English.", cache_control: { type: "ephemeral" } },
      ],
      messages: [{ role: "user", content: "hi" }],
    });
    expect(p.instructions).toEqual(["You are terse.\n\nAnswer in English."]);
    expect(p.messages).toEqual([{ role: "user", content: "hi" }]);
    expect(p.inputMessages[0]).toEqual({ role: "system", content: "You are terse.\n\nAnswer in English." });
    expect(parse({ system: "S", messages: [{ role: "user", content: "x" }] }).instructions).toEqual(["S"]);
  });

  it("turns images (base64 and url) into image parts and keeps text parts in order", () => {
    const p = parse({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            { type: "image", source: { type: "url", url: "https://example.com/a.jpg" } },
            { type: "image", source: { type: "file", file_id: "file_1" } },
          ],
        },
      ],
    });
    expect(p.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "image_url", image_url: { url: "https://example.com/a.jpg" } },
        ],
      },
    ]);
  });

  it("translates a tool round trip: tool_use → tool_calls, tool_result → tool messages before the turn's text", () => {
    const p = parse({
      messages: [
        { role: "user", content: "call get_weather" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "x" },
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Oslo" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: '{"temp":21}' }] },
            { type: "text", text: "and?" },
          ],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_2", name: "get_weather", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "boom", is_error: true }] },
      ],
      tools: [
        { name: "get_weather", description: "Weather", input_schema: { type: "object", properties: {} } },
        { type: "web_search_20250305", name: "web_search", max_uses: 3 },
      ],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
    });
    expect(p.messages).toEqual([
      { role: "user", content: "call get_weather" },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: "tool", tool_call_id: "toolu_1", content: '{"temp":21}' },
      { role: "user", content: "and?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "toolu_2", type: "function", function: { name: "get_weather", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "toolu_2", content: "Error: boom" },
    ]);
    // The server tool is not ours to run: only the client tool is offered.
    expect(p.tools).toEqual([
      {
        type: "function",
        function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: {} } },
      },
    ]);
    expect(p.toolChoice).toBe("required");
    expect(p.params).toEqual({ parallel_tool_calls: false });
  });

  it("maps tool_choice auto/none/tool and the sampling fields; top_k is not honoured", () => {
    const tools = [{ name: "t", input_schema: { type: "object" } }];
    const msg = [{ role: "user", content: "x" }];
    expect(parse({ messages: msg, tools, tool_choice: { type: "auto" } }).toolChoice).toBe("auto");
    expect(parse({ messages: msg, tools, tool_choice: { type: "none" } }).toolChoice).toBe("none");
    expect(parse({ messages: msg, tools, tool_choice: { type: "tool", name: "t" } }).toolChoice).toEqual({
      type: "function",
      function: { name: "t" },
    });
    // Without tools no tool_choice reaches the model (OpenAI refuses one alone).
    expect(parse({ messages: msg, tool_choice: { type: "any" } }).toolChoice).toBeUndefined();
    const p = parse({
      messages: msg,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 5,
      stop_sequences: ["END"],
      metadata: { user_id: "u-1" },
    });
    expect(p.params).toEqual({ temperature: 0.2, top_p: 0.9, stop: ["END"], user: "u-1" });
    expect(p.maxOutputTokens).toBe(100);
  });

  it("lifts mid-conversation system messages into instruction layers and keeps them in the stored input", () => {
    const p = parse({
      system: "first",
      messages: [
        { role: "user", content: "hi" },
        { role: "system", content: "later" },
      ],
    });
    expect(p.instructions).toEqual(["first", "later"]);
    expect(p.messages).toEqual([{ role: "user", content: "hi" }]);
    expect(p.inputMessages.map((m) => m.role)).toEqual(["system", "user", "system"]);
  });

  it("accepts what Claude Code sends (thinking, context_management, cache_control) and keeps its tools", () => {
    for (const name of ["claude-code-say-hi", "claude-code-tool-result"]) {
      const fixture = JSON.parse(readFileSync(`test/fixtures/clients/${name}.json`, "utf8"));
      const input = MessagesInput.parse(fixture.body);
      const p = toChatPrompt(input);
      expect(p.tools!.length).toBe(fixture.body.tools.length);
      expect(p.instructions[0]).toContain("Claude");
      expect(p.maxOutputTokens).toBe(fixture.body.max_tokens);
      expect(CountTokensInput.safeParse(fixture.body).success).toBe(true);
    }
  });

  it("rejects malformed blocks it would translate, naming the field", () => {
    const bad = MessagesInput.safeParse({
      ...base,
      messages: [{ role: "user", content: [{ type: "tool_result", content: "x" }] }],
    });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(["messages", 0, "content", 0, "tool_use_id"]);
    expect(
      MessagesInput.safeParse({ ...base, messages: [{ role: "user", content: [{ type: "text" }] }] }).success,
    ).toBe(false);
    expect(MessagesInput.safeParse({ model: "m", messages: [{ role: "user", content: "x" }] }).success).toBe(false);
    // Unknown block types are accepted and left out.
    const ok = parse({
      messages: [
        {
          role: "user",
          content: [
            { type: "tool_reference", tool_name: "x" },
            { type: "text", text: "y" },
          ],
        },
      ],
    });
    expect(ok.messages).toEqual([{ role: "user", content: "y" }]);
  });
});
