import { createParser, type EventSourceMessage } from "eventsource-parser";

/**
 * Server-sent events of a byte stream, a batch per read that completed any (no buffering beyond
 * one event): a fast answer's events, arriving together, cost one turn of each reader, not one per event.
 */
export async function* sseEventBatches(body: AsyncIterable<Uint8Array | string>): AsyncIterable<EventSourceMessage[]> {
  let batch: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => batch.push(e) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    if (batch.length === 0) continue;
    const events = batch;
    batch = [];
    yield events;
  }
  if (batch.length) yield batch;
}
