import "server-only";
import type { ProviderGroupConfig } from "../config";
import { bodyError, postJson } from "../http";
import { sseEventBatches } from "../sse";
import {
  UpstreamError,
  type CallOptions,
  type ChatChunk,
  type ChatRequest,
  type ChatResult,
  type ProviderAdapter,
  type ToolCall,
  type ToolCallDelta,
  type Usage,
} from "../types";

/** OpenAI Chat Completions and every server that speaks it (OpenRouter, Gemini's OpenAI endpoint, vLLM, Ollama…). */
interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

/**
 * The output cap's field: OpenAI's API takes `max_completion_tokens` (its reasoning models refuse
 * `max_tokens`); DeepSeek, Mistral, OpenRouter and Gemini's OpenAI endpoint take `max_tokens`.
 * Never both.
 * @internal
 */
export type CapField = "max_tokens" | "max_completion_tokens";
/** @internal */
export const capFieldFor = (groupId: string): CapField =>
  groupId === "openai" ? "max_completion_tokens" : "max_tokens";

/** @internal */
export function toWireRequest(req: ChatRequest, stream: boolean, capField: CapField = "max_tokens") {
  const { max_tokens: _a, max_completion_tokens: _b, ...params } = req.params;
  return {
    ...params,
    ...(req.maxOutputTokens ? { [capField]: req.maxOutputTokens } : {}),
    model: req.model,
    messages: req.messages,
    ...(req.tools?.length ? { tools: req.tools } : {}),
    ...(req.toolChoice !== undefined ? { tool_choice: req.toolChoice } : {}),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : { stream: false }),
  };
}

/** @internal */
export function fromWireUsage(u: WireUsage | null | undefined): Usage | null {
  if (!u || typeof u.prompt_tokens !== "number") return null;
  return {
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens ?? 0,
    cachedTokens: u.prompt_tokens_details?.cached_tokens ?? 0,
  };
}

interface WireResponse {
  model?: string;
  choices?: { message?: { content?: string | null; tool_calls?: ToolCall[] }; finish_reason?: string | null }[];
  usage?: WireUsage;
}

/** @internal */
export function fromWireResponse(json: WireResponse): ChatResult {
  const choice = json.choices?.[0];
  return {
    ...(json.model ? { model: json.model } : {}),
    content: choice?.message?.content ?? null,
    toolCalls: choice?.message?.tool_calls ?? [],
    finishReason: choice?.finish_reason ?? "stop",
    usage: fromWireUsage(json.usage),
  };
}

interface WireChunk {
  model?: string;
  choices?: { delta?: { content?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null }[];
  usage?: WireUsage | null;
  error?: { message?: string };
}

/**
 * Where a stream stands: `finished` once a finish reason came, `done` at [DONE], `failed` at an
 * error event (after the batch's earlier chunks); `named` once the model was passed on.
 */
interface StreamState {
  finished: boolean;
  named: boolean;
  done: boolean;
  failed?: UpstreamError;
}

/** The chunks of a batch of stream events, up to [DONE] or an error; comments and keep-alives are skipped. */
function fromWireEvents(provider: string, events: { data: string }[], state: StreamState): ChatChunk[] {
  const out: ChatChunk[] = [];
  for (const event of events) {
    if (event.data === "[DONE]") {
      state.done = true;
      break;
    }
    const chunk = fromWireChunk(provider, event.data, state);
    if (state.failed) break;
    if (chunk) out.push(chunk);
  }
  return out;
}

function fromWireChunk(provider: string, data: string, state: StreamState): ChatChunk | null {
  let chunk: WireChunk;
  try {
    chunk = JSON.parse(data) as WireChunk;
  } catch {
    return null;
  }
  if (chunk.error) {
    state.failed = new UpstreamError(
      provider,
      null,
      `${provider} stream error: ${chunk.error.message ?? "unknown"}`,
      false,
    );
    return null;
  }
  const choice = chunk.choices?.[0];
  const out: ChatChunk = {};
  if (choice?.delta?.content) out.content = choice.delta.content;
  if (choice?.delta?.tool_calls?.length) out.toolCalls = choice.delta.tool_calls;
  if (choice?.finish_reason) {
    out.finishReason = choice.finish_reason;
    state.finished = true;
  }
  const usage = fromWireUsage(chunk.usage);
  if (usage) out.usage = usage;
  if (out.content === undefined && !out.toolCalls && !out.finishReason && !out.usage) return null;
  if (!state.named && chunk.model) {
    out.model = chunk.model;
    state.named = true;
  }
  return out;
}

export function openAiAdapter(group: ProviderGroupConfig): ProviderAdapter {
  const call = (req: ChatRequest, opts: CallOptions, stream: boolean) =>
    postJson({
      provider: group.id,
      url: `${group.baseUrl}/chat/completions`,
      headers: { authorization: `Bearer ${group.apiKey}`, accept: stream ? "text/event-stream" : "application/json" },
      body: toWireRequest(req, stream, capFieldFor(group.id)),
      signal: opts.signal,
      onDispatch: opts.onDispatch,
      secrets: [group.apiKey],
    });

  return {
    async complete(req, opts) {
      const res = await call(req, opts, false);
      try {
        return fromWireResponse((await res.body.json()) as WireResponse);
      } catch (err) {
        throw new UpstreamError(
          group.id,
          res.status,
          `${group.id} sent an unreadable response: ${(err as Error).message}`,
          true,
        );
      }
    },

    async *stream(req, opts): AsyncIterable<ChatChunk[]> {
      const res = await call(req, opts, true);
      const state: StreamState = { finished: false, named: false, done: false };
      try {
        for await (const events of sseEventBatches(res.body)) {
          const chunks = fromWireEvents(group.id, events, state);
          if (chunks.length) yield chunks;
          if (state.failed) throw state.failed;
          if (state.done) return;
        }
      } catch (err) {
        if (opts.signal.aborted) throw err;
        throw bodyError(group.id, err);
      }
      // A connection that closes mid-answer must not look like a clean finish.
      if (!state.finished)
        throw new UpstreamError(group.id, null, `${group.id} stream ended before the answer was complete`, false);
    },
  };
}
