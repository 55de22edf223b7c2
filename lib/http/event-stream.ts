import { rawResponseStreams } from "@/lib/process-channels.mjs";
import { servedByFastLane } from "./served-by-fast-lane";
import type { SseBody } from "./sse-writer";

const EVENT_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  // no-transform: proxies (and Next's own compression) must not buffer the stream.
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/**
 * A Server-Sent Events response to `req` (chat completion streams) that nothing between us and the
 * client buffers. When the fast lane serves `req`, it writes `body` to the socket itself (handed
 * over through `rawResponseStreams`); through Next.js the body is a web stream.
 */
export function eventStreamResponse(req: Request, body: SseBody): Response {
  if (!servedByFastLane(req)) return new Response(body.stream(), { headers: EVENT_STREAM_HEADERS });
  const res = new Response(null, { headers: EVENT_STREAM_HEADERS });
  rawResponseStreams.getOrInit(() => new WeakMap()).set(res, body);
  return res;
}
