import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@/lib/providers/types";
import type { RunContext } from "../context";
import { multimodalStage } from "./multimodal";

/** The decisions taken before any image is loaded; loading, OCR and descriptions: test/http/multimodal.http.test.ts. */
function context(over: {
  supportsImages: boolean;
  protocol?: string;
  enableMultimodal?: boolean;
  messages: ChatMessage[];
}): RunContext {
  const all = over.messages;
  return {
    companyId: "co_test",
    requestedModel: "some-model",
    model: { model: { supportsImages: over.supportsImages }, group: { protocol: over.protocol ?? "openai" } },
    runId: "run_test",
    signal: new AbortController().signal,
    enableMultimodal: over.enableMultimodal ?? true,
    instructions: [],
    inputMessages: all,
    messages: all.filter((m) => m.role !== "system"),
    imageNotes: [],
    steps: [],
    startedAt: 0,
  } as unknown as RunContext;
}

const image = (url: string) => ({ type: "image_url", image_url: { url } });
const withImage = (url: string): ChatMessage[] => [
  { role: "system", content: "sys" },
  { role: "user", content: [{ type: "text", text: "look" }, image(url)] },
];

describe("multimodal stage", () => {
  it("leaves text-only calls alone", async () => {
    const ctx = context({
      supportsImages: false,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    });
    const before = ctx.messages;
    await multimodalStage.run(ctx);
    expect(ctx.messages).toBe(before);
  });

  it("with enable_multimodal false refuses images for a model without image input, and passes them to one with it", async () => {
    const off = context({
      supportsImages: false,
      enableMultimodal: false,
      messages: withImage("https://127.0.0.1/a.png"),
    });
    await expect(multimodalStage.run(off)).rejects.toMatchObject({
      code: "invalid_request",
      wireCode: "model_not_multimodal",
      param: "messages",
    });
    // Not looked at at all: not even the URL check runs.
    const vision = context({
      supportsImages: true,
      enableMultimodal: false,
      messages: withImage("https://127.0.0.1/a.png"),
    });
    await multimodalStage.run(vision);
    expect(vision.messages[0]!.content).toEqual([{ type: "text", text: "look" }, image("https://127.0.0.1/a.png")]);
    expect(vision.imageNotes).toEqual([]);
  });

  it.each([
    "https://10.1.2.3/x.png",
    "https://0x7f.1/x.png",
    "https://[::ffff:127.0.0.1]/x.png",
    "http://example.com/x.png",
  ])(
    "refuses %s for a vision model before the provider sees it, naming the part as the request gave it",
    async (url) => {
      const ctx = context({ supportsImages: true, messages: withImage(url) });
      await expect(multimodalStage.run(ctx)).rejects.toMatchObject({
        wireCode: "invalid_image_url",
        param: "messages.1.content.1.image_url",
      });
    },
  );

  it("hands a public HTTPS URL to a vision model unfetched and unchanged", async () => {
    const ctx = context({ supportsImages: true, messages: withImage("https://images.example.com/cat.png") });
    const before = ctx.messages;
    await multimodalStage.run(ctx);
    expect(ctx.messages).toBe(before);
    expect(ctx.imageNotes).toEqual([]);
  });
});
