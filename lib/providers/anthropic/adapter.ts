import "server-only";
import type { ProviderGroupConfig } from "../config";
import { bodyError, postJson } from "../http";
import { sseEventBatches } from "../sse";
import { UpstreamError, type CallOptions, type ChatChunk, type ProviderAdapter } from "../types";
import {
  ANTHROPIC_VERSION,
  anthropicStreamTranslator,
  type AnthropicStreamEvent,
  fromAnthropicResponse,
  toAnthropicRequest,
} from "./translate";

/** Where a stream stands: `finished` at message_stop, `failed` at an error event (after the batch's earlier chunks). */
interface StreamState {
  finished: boolean;
  failed?: UpstreamError;
}

/** The chunks of a batch of stream events, up to message_stop or an error; unreadable events are skipped. */
function fromStreamEvents(
  provider: string,
  events: { event?: string; data: string }[],
  translate: ReturnType<typeof anthropicStreamTranslator>,
  state: StreamState,
): ChatChunk[] {
  const out: ChatChunk[] = [];
  for (const event of events) {
    let data: AnthropicStreamEvent;
    try {
      data = JSON.parse(event.data) as AnthropicStreamEvent;
    } catch {
      continue;
    }
    const type = event.event ?? data.type ?? "";
    if (type === "error") {
      state.failed = new UpstreamError(
        provider,
        null,
        `${provider} stream error: ${data.error?.message ?? "unknown"}`,
        false,
      );
      break;
    }
    if (type === "message_stop") {
      state.finished = true;
      break;
    }
    const chunk = translate(type, data);
    if (chunk) out.push(chunk);
  }
  return out;
}

export function anthropicAdapter(group: ProviderGroupConfig): ProviderAdapter {
  const call = (body: unknown, opts: CallOptions) =>
    postJson({
      provider: group.id,
      url: `${group.baseUrl}/v1/messages`,
      headers: { "x-api-key": group.apiKey ?? "", "anthropic-version": ANTHROPIC_VERSION },
      body,
      signal: opts.signal,
      onDispatch: opts.onDispatch,
      secrets: [group.apiKey],
    });

  return {
    async complete(req, opts) {
      const res = await call(toAnthropicRequest(req, false), opts);
      try {
        return fromAnthropicResponse((await res.body.json()) as Parameters<typeof fromAnthropicResponse>[0]);
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
      const res = await call(toAnthropicRequest(req, true), opts);
      const translate = anthropicStreamTranslator();
      const state: StreamState = { finished: false };
      try {
        for await (const events of sseEventBatches(res.body)) {
          const chunks = fromStreamEvents(group.id, events, translate, state);
          if (chunks.length) yield chunks;
          if (state.failed) throw state.failed;
          if (state.finished) return;
        }
      } catch (err) {
        if (opts.signal.aborted) throw err;
        throw bodyError(group.id, err);
      }
      throw new UpstreamError(group.id, null, `${group.id} stream ended before the answer was complete`, false);
    },
  };
}
