import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "@/components/panel/fetch-json";
import { readFrame, streamChat } from "./stream-chat";

const chunk = (content: string | null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: null }],
    ...extra,
  });
const usage = {
  prompt_tokens: 12,
  completion_tokens: 5,
  total_tokens: 17,
  prompt_tokens_details: { cached_tokens: 0 },
};

/** A fetch answering with an SSE body cut into the given network pieces (frames split anywhere). */
function sseFetch(pieces: string[], init: ResponseInit = {}) {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const p of pieces) controller.enqueue(encoder.encode(p));
      controller.close();
    },
  });
  return vi.fn(
    async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" }, ...init }),
  );
}

afterEach(() => vi.unstubAllGlobals());

describe("readFrame", () => {
  it("reads content deltas, the finish reason and the usage frame", () => {
    expect(readFrame(chunk("Hel"))).toEqual({ kind: "chunk", content: "Hel", finishReason: null, usage: null });
    expect(readFrame(JSON.stringify({ choices: [{ delta: {}, finish_reason: "stop" }] }))).toMatchObject({
      finishReason: "stop",
    });
    expect(readFrame(JSON.stringify({ choices: [], usage }))).toEqual({
      kind: "chunk",
      content: "",
      finishReason: null,
      usage,
    });
    expect(readFrame("[DONE]")).toEqual({ kind: "done" });
  });

  it("turns an error frame into an ApiError with the server's message", () => {
    const frame = readFrame(
      JSON.stringify({ error: { message: "upstream went away", type: "upstream_error", code: "upstream_error" } }),
    );
    expect(frame.kind).toBe("error");
    expect(frame.kind === "error" && frame.error.message).toBe("upstream went away");
  });
});

describe("streamChat", () => {
  it("delivers the text piece by piece and resolves with the usage at [DONE]", async () => {
    const sse = [
      chunk("", { choices: [{ delta: { role: "assistant", content: "" } }] }),
      chunk("You said"),
      chunk(": hi"),
      JSON.stringify({ choices: [], usage }),
      "[DONE]",
    ]
      .map((d) => `data: ${d}\n\n`)
      .join("");
    // Cut mid-frame: the parser must join pieces across reads.
    const fetchMock = sseFetch([sse.slice(0, 37), sse.slice(37, 150), sse.slice(150)]);
    vi.stubGlobal("fetch", fetchMock);
    const deltas: string[] = [];
    const outcome = await streamChat(
      { model: "local-chat-latest", messages: [{ role: "user", content: "hi" }] },
      { signal: new AbortController().signal, onDelta: (t) => deltas.push(t) },
    );
    expect(deltas).toEqual(["You said", ": hi"]);
    expect(outcome.usage).toEqual(usage);
    const sent = JSON.parse((fetchMock.mock.calls[0] as unknown as [string, RequestInit])[1].body as string) as Record<
      string,
      unknown
    >;
    expect(sent).toMatchObject({ model: "local-chat-latest", stream: true, stream_options: { include_usage: true } });
  });

  it("rejects with the error body of a refused call (402)", async () => {
    const body = {
      error: {
        message: "Insufficient O₮ balance: this call needs up to 1 O₮.",
        type: "insufficient_balance",
        code: "insufficient_balance",
        param: null,
      },
    };
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => Response.json(body, { status: 402 })),
    );
    const err = await streamChat(
      { model: "m", messages: [] },
      { signal: new AbortController().signal, onDelta: () => undefined },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 402, code: "insufficient_balance", message: body.error.message });
  });

  it("rejects when the stream fails midway or ends without [DONE]", async () => {
    vi.stubGlobal(
      "fetch",
      sseFetch([
        `data: ${chunk("partial")}\n\n`,
        `data: ${JSON.stringify({ error: { message: "The stream failed", type: "api_error" } })}\n\n`,
      ]),
    );
    await expect(
      streamChat({ model: "m", messages: [] }, { signal: new AbortController().signal, onDelta: () => undefined }),
    ).rejects.toThrow("The stream failed");

    vi.stubGlobal("fetch", sseFetch([`data: ${chunk("partial")}\n\n`]));
    await expect(
      streamChat({ model: "m", messages: [] }, { signal: new AbortController().signal, onDelta: () => undefined }),
    ).rejects.toMatchObject({ code: "stream_incomplete" });
  });

  it("stops reading when the signal fires (the stop button)", async () => {
    const encoder = new TextEncoder();
    // A stream that sends one piece and then stays open, like a slow model.
    const body = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(encoder.encode(`data: ${chunk("slow")}\n\n`)),
    });
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response(body, { status: 200 })),
    );
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = streamChat(
      { model: "m", messages: [] },
      {
        signal: controller.signal,
        onDelta: (t) => {
          deltas.push(t);
          controller.abort();
        },
      },
    );
    await expect(pending).rejects.toBeDefined();
    expect(deltas).toEqual(["slow"]);
  });
});
