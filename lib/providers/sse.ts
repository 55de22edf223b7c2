import { createParser, type EventSourceMessage } from "eventsource-parser";

/** Server-sent events of a byte stream, as they arrive (no buffering beyond one event). */
export async function* sseEvents(body: AsyncIterable<Uint8Array | string>): AsyncIterable<EventSourceMessage> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => queue.push(e) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    while (queue.length) yield queue.shift()!;
  }
  while (queue.length) yield queue.shift()!;
}
