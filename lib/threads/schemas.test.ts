import { describe, expect, it } from "vitest";
import { zodToAppError } from "@/lib/http/error-response";
import { BulkMessagesInput, CreateThreadInput, MessageInput } from "./schemas";

const paramOf = (schema: { safeParse: (v: unknown) => { success: boolean; error?: unknown } }, value: unknown) => {
  const r = schema.safeParse(value);
  expect(r.success).toBe(false);
  return zodToAppError(r.error as never).param;
};

describe("threads schemas", () => {
  it("names the bad part of a message, at any depth", () => {
    expect(
      paramOf(MessageInput, {
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "image_url", image_url: { url: "http://x" } },
        ],
      }),
    ).toBe("content.1.image_url.url");
    expect(
      paramOf(BulkMessagesInput, {
        messages: [
          { role: "user", content: "a" },
          { role: "user", content: [{ type: "video" }] },
        ],
      }),
    ).toBe("messages.1.content.0.type");
    expect(paramOf(MessageInput, { role: "user", content: 3 })).toBe("content");
  });

  it("keeps string content and parts as given", () => {
    const parts = [
      { type: "text", text: "hi" },
      { type: "image_url", image_url: { url: "https://e.com/a.png", detail: "low" } },
    ];
    expect(MessageInput.parse({ role: "narrator", content: parts })).toEqual({ role: "narrator", content: parts });
    expect(MessageInput.parse({ role: "user", content: "" })).toEqual({ role: "user", content: "" });
  });

  it("bounds metadata as OpenAI does (16 keys, 64-character keys, 512-character values)", () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));
    expect(CreateThreadInput.parse({ metadata: keys(16) }).metadata).toEqual(keys(16));
    expect(paramOf(CreateThreadInput, { metadata: keys(17) })).toBe("metadata");
    expect(paramOf(CreateThreadInput, { metadata: { ["x".repeat(65)]: "v" } })).toBe(`metadata.${"x".repeat(65)}`);
    expect(paramOf(CreateThreadInput, { metadata: { a: "v".repeat(513) } })).toBe("metadata.a");
    expect(CreateThreadInput.parse({}).metadata).toEqual({});
    expect(
      paramOf(BulkMessagesInput, { messages: Array.from({ length: 101 }, () => ({ role: "user", content: "x" })) }),
    ).toBe("messages");
  });
});
