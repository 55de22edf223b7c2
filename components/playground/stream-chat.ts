import { createParser } from "eventsource-parser";
import { ApiError, toApiError } from "@/components/panel/fetch-json";

const PLAYGROUND_URL = "/api/panel/playground";

export interface WireMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** OpenAI `usage`: cached tokens are counted inside prompt_tokens. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

export interface PlaygroundRequest {
  model: string;
  messages: WireMessage[];
  temperature?: number;
  max_completion_tokens?: number;
}

/**
 * What one SSE `data:` payload of a chat completion stream means for the transcript.
 * @internal
 */
export type Frame =
  | { kind: "done" }
  | { kind: "error"; error: ApiError }
  | { kind: "chunk"; content: string; finishReason: string | null; usage: ChatUsage | null };

interface ChunkBody {
  choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: ChatUsage | null;
  error?: unknown;
}

/** @internal */
export function readFrame(data: string, status = 200): Frame {
  if (data.trim() === "[DONE]") return { kind: "done" };
  let body: ChunkBody;
  try {
    body = JSON.parse(data) as ChunkBody;
  } catch {
    return { kind: "error", error: new ApiError("The server sent a frame that is not JSON", status) };
  }
  // A stream that fails after its first byte ends with an OpenAI error body and no [DONE].
  if (body.error) return { kind: "error", error: toApiError(status, body) };
  const choice = body.choices?.[0];
  return {
    kind: "chunk",
    content: choice?.delta?.content ?? "",
    finishReason: choice?.finish_reason ?? null,
    usage: body.usage ?? null,
  };
}

export interface StreamOutcome {
  usage: ChatUsage | null;
  finishReason: string | null;
}

/**
 * Streams the conversation through the playground endpoint, calling `onDelta` per text piece;
 * resolves at [DONE] with the usage frame. Rejects with an ApiError for an error answer or frame,
 * or the abort reason on "stop".
 */
export async function streamChat(
  request: PlaygroundRequest,
  opts: { signal: AbortSignal; onDelta: (text: string) => void },
): Promise<StreamOutcome> {
  const res = await fetch(PLAYGROUND_URL, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    credentials: "same-origin",
    body: JSON.stringify({ ...request, stream: true, stream_options: { include_usage: true } }),
    signal: opts.signal,
  });
  if (!res.ok) throw toApiError(res.status, await res.json().catch(() => null));
  if (!res.body) throw new ApiError("The server answered without a stream", res.status);

  const outcome: StreamOutcome = { usage: null, finishReason: null };
  let done = false;
  let failure: ApiError | null = null;
  const parser = createParser({
    onEvent: (event) => {
      if (done || failure) return;
      const frame = readFrame(event.data, res.status);
      if (frame.kind === "done") done = true;
      else if (frame.kind === "error") failure = frame.error;
      else {
        if (frame.content) opts.onDelta(frame.content);
        if (frame.finishReason) outcome.finishReason = frame.finishReason;
        if (frame.usage) outcome.usage = frame.usage;
      }
    },
  });

  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  // fetch errors the body on abort too; cancelling here also ends a read on any other body.
  const stop = () => void reader.cancel().catch(() => undefined);
  opts.signal.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      const { done: ended, value } = await reader.read();
      if (ended) break;
      parser.feed(value);
      if (done || failure) break;
    }
  } finally {
    opts.signal.removeEventListener("abort", stop);
    // Stops reading whatever follows [DONE] or an error frame; a no-op on a finished stream.
    stop();
  }
  opts.signal.throwIfAborted();
  if (failure) throw failure;
  if (!done) throw new ApiError("The stream ended before the answer was complete", res.status, "stream_incomplete");
  return outcome;
}
