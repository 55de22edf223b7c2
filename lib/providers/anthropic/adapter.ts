import "server-only";
import type { ProviderGroupConfig } from "../config";
import { bodyError, postJson } from "../http";
import { sseEvents } from "../sse";
import { UpstreamError, type CallOptions, type ChatChunk, type ProviderAdapter } from "../types";
import {
  ANTHROPIC_VERSION,
  anthropicStreamTranslator,
  type AnthropicStreamEvent,
  fromAnthropicResponse,
  toAnthropicRequest,
} from "./translate";

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

    async *stream(req, opts): AsyncIterable<ChatChunk> {
      const res = await call(toAnthropicRequest(req, true), opts);
      const translate = anthropicStreamTranslator();
      let finished = false;
      try {
        for await (const event of sseEvents(res.body)) {
          let data: AnthropicStreamEvent;
          try {
            data = JSON.parse(event.data) as AnthropicStreamEvent;
          } catch {
            continue;
          }
          const type = event.event ?? data.type ?? "";
          if (type === "error")
            throw new UpstreamError(
              group.id,
              null,
              `${group.id} stream error: ${data.error?.message ?? "unknown"}`,
              false,
            );
          if (type === "message_stop") {
            finished = true;
            return;
          }
          const chunk = translate(type, data);
          if (chunk) yield chunk;
        }
      } catch (err) {
        if (opts.signal.aborted) throw err;
        throw bodyError(group.id, err);
      }
      if (!finished)
        throw new UpstreamError(group.id, null, `${group.id} stream ended before the answer was complete`, false);
    },
  };
}
