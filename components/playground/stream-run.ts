import { createParser } from "eventsource-parser";
import { ApiError, fetchJson, toApiError } from "@/components/panel/fetch-json";

const THREADS_URL = "/api/panel/playground/threads";

export interface WireMessage {
  role: "user" | "assistant";
  content: string;
}

/** A run's `usage` (SPEC): cached input is counted inside prompt_tokens. */
export interface RunUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens?: number;
}

/** CONTRACT 6 `applied_rules`: one per guardrail rule that fired. */
export interface AppliedRule {
  id: string;
  name: string;
  action: string;
  stage: string;
}

/** SPEC's `{name, args, result}`. */
export interface ToolCall {
  name: string;
  args: unknown;
  result: unknown;
}

/** The run as GET /api/panel/threads/{id}/runs/{run_id} returns it (the fields the playground reads). */
export interface PlaygroundRun {
  id: string;
  thread_id: string;
  status: string;
  usage: RunUsage;
  tool_calls: ToolCall[];
  applied_rules: AppliedRule[];
  cost_ot: number;
  latency_ms: number;
  error: { code: string; message: string } | null;
}

export interface RunRequest {
  model: string;
  instructions?: string;
  /** Absent: the company's default profile; `[]`: no profile at all. */
  profile_ids?: string[];
  temperature?: number;
  max_completion_tokens?: number;
}

/** A new thread holding the given messages (the chat's first turn, or its history after a blocked turn). */
export async function createChatThread(messages: WireMessage[]): Promise<string> {
  const thread = await fetchJson<{ id: string }>(THREADS_URL, {
    method: "POST",
    body: JSON.stringify({ metadata: { origin: "playground" }, messages }),
  });
  return thread.id;
}

export async function addUserMessage(threadId: string, content: string): Promise<void> {
  await fetchJson(`${THREADS_URL}/${encodeURIComponent(threadId)}/messages`, {
    method: "POST",
    body: JSON.stringify({ role: "user", content }),
  });
}

export function fetchRun(threadId: string, runId: string): Promise<PlaygroundRun> {
  return fetchJson<PlaygroundRun>(
    `/api/panel/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}`,
  );
}

/**
 * What one SSE `data:` payload of a run stream means (SPEC's frames, CONTRACT 6's `tool_call` and
 * `error`).
 * @internal
 */
export type RunFrame =
  | { kind: "terminator" }
  | { kind: "error"; error: ApiError }
  | { kind: "delta"; text: string }
  | { kind: "tool_call"; call: ToolCall }
  | { kind: "final"; usage: RunUsage | null }
  | { kind: "other" };

interface FrameBody {
  delta?: unknown;
  tool_call?: ToolCall;
  done?: boolean;
  usage?: RunUsage;
  error?: unknown;
}

/** @internal */
export function readRunFrame(data: string, status = 200): RunFrame {
  if (data.trim() === "[DONE]") return { kind: "terminator" };
  let body: FrameBody;
  try {
    body = JSON.parse(data) as FrameBody;
  } catch {
    return { kind: "error", error: new ApiError("The server sent a frame that is not JSON", status) };
  }
  if (body.error) return { kind: "error", error: toApiError(status, body) };
  if (body.tool_call) return { kind: "tool_call", call: body.tool_call };
  if (body.done === true) return { kind: "final", usage: body.usage ?? null };
  if (typeof body.delta === "string") return { kind: "delta", text: body.delta };
  return { kind: "other" };
}

export interface RunStreamOutcome {
  runId: string | null;
  usage: RunUsage | null;
}

/** The run id a failed run names in its error body (CONTRACT 6: 502 with `run_id`). */
function runIdOf(body: unknown): string | null {
  const b = body as { run_id?: unknown; error?: { run_id?: unknown } } | null;
  const id = b?.run_id ?? b?.error?.run_id;
  return typeof id === "string" ? id : null;
}

export class RunError extends ApiError {
  constructor(
    error: ApiError,
    readonly runId: string | null,
  ) {
    super(error.message, error.status, error.code, error.param);
  }
}

/**
 * Starts a streaming run on the thread, calling `onDelta` per text piece and `onToolCall` per
 * executed tool; resolves at `[DONE]`. Rejects with a RunError (carrying the run's id when it was
 * stored) for an error answer or frame, or with the abort reason on "stop".
 */
export async function streamRun(
  threadId: string,
  request: RunRequest,
  opts: {
    signal: AbortSignal;
    onDelta: (text: string) => void;
    onToolCall: (call: ToolCall) => void;
    /** Once the run is stored and streaming: a stopped answer still links to its run. */
    onRunId?: (runId: string) => void;
  },
): Promise<RunStreamOutcome> {
  const res = await fetch(`${THREADS_URL}/${encodeURIComponent(threadId)}/runs`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    credentials: "same-origin",
    body: JSON.stringify({ ...request, stream: true }),
    signal: opts.signal,
  });
  if (!res.ok) {
    const body: unknown = await res.json().catch(() => null);
    throw new RunError(toApiError(res.status, body), runIdOf(body));
  }
  const runId = res.headers.get("x-run-id");
  if (runId) opts.onRunId?.(runId);
  if (!res.body) throw new RunError(new ApiError("The server answered without a stream", res.status), runId);

  const outcome: RunStreamOutcome = { runId, usage: null };
  let done = false;
  let failure: ApiError | null = null;
  const parser = createParser({
    onEvent: (event) => {
      if (done || failure) return;
      const frame = readRunFrame(event.data, res.status);
      if (frame.kind === "terminator") done = true;
      else if (frame.kind === "error") failure = frame.error;
      else if (frame.kind === "delta" && frame.text) opts.onDelta(frame.text);
      else if (frame.kind === "tool_call") opts.onToolCall(frame.call);
      else if (frame.kind === "final") outcome.usage = frame.usage;
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
    stop();
  }
  opts.signal.throwIfAborted();
  if (failure) throw new RunError(failure, runId);
  if (!done)
    throw new RunError(
      new ApiError("The stream ended before the answer was complete", res.status, "stream_incomplete"),
      runId,
    );
  return outcome;
}
