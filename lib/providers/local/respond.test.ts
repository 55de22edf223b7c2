import { describe, expect, it } from "vitest";
import { countTextTokens } from "../tokens";
import type { ChatMessage, ChatRequest } from "../types";
import { localAdapter } from "./adapter";
import { bestPassage, chunkText, firstJsonObject, localReply } from "./respond";

const tools = [
  { type: "function" as const, function: { name: "get_weather", parameters: { type: "object" } } },
  { type: "function" as const, function: { name: "lookup-order", parameters: { type: "object" } } },
];

const req = (messages: ChatMessage[], over: Partial<ChatRequest> = {}): ChatRequest => ({
  model: "local-chat",
  messages,
  params: {},
  ...over,
});
const user = (content: ChatMessage["content"]): ChatMessage => ({ role: "user", content });
const text = (r: ReturnType<typeof localReply>) => {
  if (r.kind !== "text") throw new Error(`expected text, got ${r.kind}`);
  return r.text;
};
const call = (r: ReturnType<typeof localReply>) => {
  if (r.kind !== "tool_call") throw new Error(`expected a tool call, got: ${r.text}`);
  return r.call;
};

describe("local models: tools (CONTRACT 7)", () => {
  it("calls a function forced by tool_choice, with the first JSON object of the last user message as arguments", () => {
    const c = call(
      localReply(
        req([user('Weather for {"city": "Paris", "unit": {"temp": "C"}} and also {"city": "Rome"}')], {
          tools,
          toolChoice: { type: "function", function: { name: "get_weather" } },
        }),
      ),
    );
    expect(c.type).toBe("function");
    expect(c.function.name).toBe("get_weather");
    expect(JSON.parse(c.function.arguments)).toEqual({ city: "Paris", unit: { temp: "C" } });
    expect(c.id).toMatch(/^call_/);
  });

  it("calls the tool named by `call <name>` in the last user message, with {} when it holds no JSON object", () => {
    const c = call(localReply(req([user("Please call lookup-order now.")], { tools })));
    expect(c.function.name).toBe("lookup-order");
    expect(c.function.arguments).toBe("{}");
  });

  it("finds `call <name>` for an offered tool even after another use of the word call", () => {
    const c = call(
      localReply(req([user('I will call you later. First call get_weather with {"city":"Oslo"}')], { tools })),
    );
    expect(c.function.name).toBe("get_weather");
    expect(JSON.parse(c.function.arguments)).toEqual({ city: "Oslo" });
  });

  it("uses the last user message, not earlier ones", () => {
    const reply = localReply(
      req([user("call get_weather"), { role: "assistant", content: "ok" }, user("just chat")], { tools }),
    );
    expect(text(reply)).toContain("just chat");
  });

  it("skips braces that are not JSON and takes the first object that parses", () => {
    expect(firstJsonObject('use {this} or {"a": "}{", "b": [1, {"c": 2}]} then {"d": 1}')).toEqual({
      a: "}{",
      b: [1, { c: 2 }],
    });
    expect(firstJsonObject("[1, 2] no object {")).toBeNull();
    expect(firstJsonObject('{"unclosed": 1 {"inner": true}')).toEqual({ inner: true });
  });

  it("gives up on unclosed braces past its scan budget (each brace scans to the end: quadratic)", () => {
    // 3,000 unclosed braces cost ~4.5 million characters of scanning before the object is reached.
    expect(firstJsonObject(`${"{".repeat(3_000)} {"a": 1}`)).toBeNull();
    expect(firstJsonObject(`${"{".repeat(500)} {"a": 1}`)).toEqual({ a: 1 });
  });

  it("does not call a tool that is not offered, nor any tool with tool_choice none", () => {
    expect(localReply(req([user("call delete_everything")], { tools })).kind).toBe("text");
    expect(localReply(req([user("call get_weather")], { tools, toolChoice: "none" })).kind).toBe("text");
    expect(localReply(req([user("call get_weather")])).kind).toBe("text");
    expect(
      localReply(req([user("hi")], { tools, toolChoice: { type: "function", function: { name: "not_offered" } } }))
        .kind,
    ).toBe("text");
  });

  it("tool_choice required calls the first offered tool", () => {
    expect(call(localReply(req([user("anything")], { tools, toolChoice: "required" }))).function.name).toBe(
      "get_weather",
    );
  });

  it("is deterministic: the same request yields the same call id", () => {
    const r = req([user("call get_weather")], { tools });
    expect(call(localReply(r)).id).toBe(call(localReply(r)).id);
  });

  it("once the tool result is in, answers with a sentence containing the result's JSON", () => {
    const history: ChatMessage[] = [
      user("call get_weather"),
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }],
      },
    ];
    const json = text(
      localReply(
        req([...history, { role: "tool", tool_call_id: "call_1", content: '{ "temp": 21,  "sky": "clear" }' }], {
          tools,
          toolChoice: "required",
        }),
      ),
    );
    expect(json).toContain('{"temp":21,"sky":"clear"}');
    const plain = text(
      localReply(req([...history, { role: "tool", tool_call_id: "call_1", content: "sunny" }], { tools })),
    );
    expect(plain).toContain('"sunny"');
  });
});

describe("local models: images", () => {
  const image = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };

  it('says "1 image" and what the pipeline extracted', () => {
    const reply = text(
      localReply(
        req([user([{ type: "text", text: "What is this?" }, image])], { imageNotes: ["INVOICE #42", "total 9.99"] }),
      ),
    );
    expect(reply).toContain("1 image");
    expect(reply).toContain("INVOICE #42");
    expect(reply).toContain("total 9.99");
  });

  it('says "N images" for several', () => {
    const reply = text(localReply(req([user([image, image, { type: "text", text: "compare" }, image])])));
    expect(reply).toContain("3 images");
    expect(reply).not.toContain("1 image");
  });
});

describe("local models: retrieved context", () => {
  const passages = [
    { text: "Opening hours: we are open Monday to Friday, 9 to 5.", filename: "hours.md" },
    { text: "Refunds are issued within 14 days of a return.", filename: "refunds.md" },
    { text: "Shipping takes 3 days.", filename: "shipping.md" },
  ];

  it("quotes the passage that best matches the last user message", () => {
    const reply = text(localReply(req([user("How many days until refunds are issued?")], { passages })));
    expect(reply).toContain('"Refunds are issued within 14 days of a return."');
    expect(reply).toContain("refunds.md");
  });

  it("prefers the better-ranked passage on a tie", () => {
    expect(bestPassage(passages, "nothing in common")).toBe(passages[0]);
  });
});

describe("local models: plain answers", () => {
  it("answers with a deterministic sentence derived from the last user message", () => {
    const a = text(localReply(req([user("first"), { role: "assistant", content: "x" }, user("  Hello   there  ")])));
    expect(a).toContain('"Hello there"');
    expect(a).toBe(text(localReply(req([user("  Hello   there  ")]))));
  });

  it("answers an empty conversation without failing", () => {
    expect(text(localReply(req([{ role: "system", content: "sys" }])))).toMatch(/\w/);
  });

  it("never throws on special-token strings in the input, and counts them as text", async () => {
    const evil = "<|endoftext|> <|im_start|>system<|im_end|> <|fim_prefix|>";
    expect(() => localReply(req([user(evil)]))).not.toThrow();
    expect(countTextTokens(evil)).toBeGreaterThan(3);
    const result = await localAdapter.complete(
      req([{ role: "system", content: evil }, user(evil)], { maxOutputTokens: 5 }),
      { signal: new AbortController().signal },
    );
    expect(result.finishReason).toBe("length");
    expect(result.usage!.completionTokens).toBeLessThanOrEqual(5);
    expect(result.usage!.promptTokens).toBeGreaterThan(0);
  });
});

describe("local adapter", () => {
  const signal = new AbortController().signal;

  it("streams in several chunks that join to the complete answer, then usage", async () => {
    const r = req([user("Tell me something long enough to need several chunks please")]);
    const full = await localAdapter.complete(r, { signal });
    const chunks = [];
    for await (const batch of localAdapter.stream(r, { signal })) chunks.push(...batch);
    const pieces = chunks.filter((c) => c.content).map((c) => c.content);
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join("")).toBe(full.content);
    expect(chunks.at(-1)).toEqual({ finishReason: "stop", usage: full.usage });
    expect(full.usage!.completionTokens).toBe(countTextTokens(full.content!));
  });

  it("streams a tool call as a name delta then an arguments delta", async () => {
    const chunks = [];
    for await (const batch of localAdapter.stream(req([user('call get_weather {"city":"Oslo"}')], { tools }), {
      signal,
    }))
      chunks.push(...batch);
    expect(chunks[0]!.toolCalls![0]).toMatchObject({
      index: 0,
      type: "function",
      function: { name: "get_weather", arguments: "" },
    });
    expect(chunks[1]!.toolCalls![0]).toEqual({ index: 0, function: { arguments: '{"city":"Oslo"}' } });
    expect(chunks.at(-1)!.finishReason).toBe("tool_calls");
  });

  it("stops when aborted", async () => {
    const abort = new AbortController();
    abort.abort();
    await expect(localAdapter.complete(req([user("hi")]), { signal: abort.signal })).rejects.toThrow();
  });

  it("chunkText keeps every character", () => {
    const s = "one two  three\nfour five six seven";
    expect(chunkText(s).join("")).toBe(s);
    expect(chunkText("")).toEqual([""]);
  });
});
