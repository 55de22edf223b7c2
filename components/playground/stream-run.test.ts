import { afterEach, describe, expect, it, vi } from "vitest";
import { readRunFrame, RunError, streamRun } from "./stream-run";

const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };

/** A fetch answering with an SSE body cut into the given network pieces (frames split anywhere). */
function sseFetch(pieces: string[], headers: Record<string, string> = { "x-run-id": "run_1" }) {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const p of pieces) controller.enqueue(encoder.encode(p));
      controller.close();
    },
  });
  return vi.fn(
    async () => new Response(body, { status: 200, headers: { "content-type": "text/event-stream", ...headers } }),
  );
}

const frames = (...data: unknown[]) =>
  data.map((d) => `data: ${typeof d === "string" ? d : JSON.stringify(d)}\n\n`).join("");

const noop = () => undefined;

afterEach(() => vi.unstubAllGlobals());

describe("readRunFrame", () => {
  it("reads SPEC's delta, final and terminator frames and CONTRACT's tool_call frame", () => {
    expect(readRunFrame(JSON.stringify({ delta: "Hel", model: "m" }))).toEqual({ kind: "delta", text: "Hel" });
    expect(readRunFrame(JSON.stringify({ done: true, usage, latency_ms: 5 }))).toEqual({ kind: "final", usage });
    expect(readRunFrame("[DONE]")).toEqual({ kind: "terminator" });
    const call = { name: "add", args: { a: 1 }, result: 2 };
    expect(readRunFrame(JSON.stringify({ tool_call: call }))).toEqual({ kind: "tool_call", call });
  });

  it("turns an error frame into an ApiError with the server's message", () => {
    const frame = readRunFrame(JSON.stringify({ error: { message: "upstream went away", type: "upstream_error" } }));
    expect(frame.kind === "error" && frame.error.message).toBe("upstream went away");
  });
});

describe("streamRun", () => {
  it("delivers text and tool calls as they come and resolves with the run id and usage", async () => {
    const sse = frames(
      { tool_call: { name: "add", args: { a: 2, b: 40 }, result: 42 } },
      { delta: "The result", model: "m" },
      { delta: " is 42", model: "m" },
      { done: true, usage, latency_ms: 9 },
      "[DONE]",
    );
    const fetchMock = sseFetch([sse.slice(0, 41), sse.slice(41, 120), sse.slice(120)]);
    vi.stubGlobal("fetch", fetchMock);
    const deltas: string[] = [];
    const calls: unknown[] = [];
    const outcome = await streamRun(
      "thread_1",
      { model: "local-mini", profile_ids: [] },
      { signal: new AbortController().signal, onDelta: (t) => deltas.push(t), onToolCall: (c) => calls.push(c) },
    );
    expect(deltas).toEqual(["The result", " is 42"]);
    expect(calls).toEqual([{ name: "add", args: { a: 2, b: 40 }, result: 42 }]);
    expect(outcome).toEqual({ runId: "run_1", usage });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/api/panel/playground/threads/thread_1/runs");
    expect(JSON.parse(init.body as string)).toEqual({ model: "local-mini", profile_ids: [], stream: true });
  });

  it("rejects with the error body of a refused run and the run id it names", async () => {
    const body = {
      error: { message: "Upstream failed", type: "upstream_error", code: "upstream_error" },
      run_id: "run_9",
    };
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => Response.json(body, { status: 502 })),
    );
    const err = await streamRun(
      "thread_1",
      { model: "m" },
      { signal: new AbortController().signal, onDelta: noop, onToolCall: noop },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect(err).toMatchObject({ status: 502, code: "upstream_error", message: "Upstream failed", runId: "run_9" });
  });

  it("rejects when the stream fails midway or ends without [DONE]", async () => {
    const opts = { signal: new AbortController().signal, onDelta: noop, onToolCall: noop };
    vi.stubGlobal("fetch", sseFetch([frames({ delta: "partial" }, { error: { message: "The run failed" } })]));
    await expect(streamRun("t", { model: "m" }, opts)).rejects.toMatchObject({
      message: "The run failed",
      runId: "run_1",
    });

    vi.stubGlobal("fetch", sseFetch([frames({ delta: "partial" })]));
    await expect(streamRun("t", { model: "m" }, opts)).rejects.toMatchObject({ code: "stream_incomplete" });
  });

  it("stops reading when the signal fires (the stop button)", async () => {
    const encoder = new TextEncoder();
    // A stream that sends one piece and then stays open, like a slow model.
    const body = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(encoder.encode(frames({ delta: "slow" }))),
    });
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response(body, { status: 200 })),
    );
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = streamRun(
      "t",
      { model: "m" },
      {
        signal: controller.signal,
        onDelta: (t) => {
          deltas.push(t);
          controller.abort();
        },
        onToolCall: noop,
      },
    );
    await expect(pending).rejects.toBeDefined();
    expect(deltas).toEqual(["slow"]);
  });
});
