const encoder = new TextEncoder();

/** One SSE frame: `data: <json or literal>\n\n`, after an `event:` line when named (Anthropic's streams name theirs). */
const sseFrame = (data: unknown, event?: string) =>
  encoder.encode(
    `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`,
  );

/** A frame as a stream writer produces it. */
export interface SseFrame {
  event?: string;
  data: unknown;
}

export interface SseWriter {
  body: ReadableStream<Uint8Array>;
  /** Queues a frame; frames queued in one turn of the event loop go out as one write. */
  send(data: unknown, event?: string): void;
  /** Writes what is queued and closes the stream (idempotent). */
  end(): void;
}

/**
 * An SSE response body. Frames produced in one event-loop turn go out as one write, since a write
 * per frame is costly; `onCancel` runs when the client goes away.
 */
export function sseWriter(onCancel: () => void): SseWriter {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: () => {
      closed = true;
      onCancel();
    },
  });
  let queued: Uint8Array[] = [];
  let flushTimer: NodeJS.Immediate | undefined;
  const flush = () => {
    flushTimer = undefined;
    if (queued.length === 0) return;
    const bytes = queued.length === 1 ? queued[0]! : Buffer.concat(queued);
    queued = [];
    if (closed) return;
    try {
      controller.enqueue(bytes);
    } catch {
      closed = true;
    }
  };
  return {
    body,
    send(data, event) {
      if (closed) return;
      queued.push(sseFrame(data, event));
      flushTimer ??= setImmediate(flush);
    },
    end() {
      if (flushTimer) clearImmediate(flushTimer);
      flush();
      if (closed) return;
      closed = true;
      try {
        controller.close();
      } catch {
        // already closed by the client
      }
    },
  };
}

/** A promise settled from outside: resolves when the stream may be answered, rejects with an error that comes first. */
export function firstByteGate(): { ready: Promise<void>; open: () => void; fail: (err: unknown) => void } {
  let open!: () => void;
  let fail!: (err: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { ready, open, fail };
}
