/** One SSE frame: `data: <json or literal>\n\n`, after an `event:` line when named (Anthropic's streams name theirs). */
const sseFrame = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

/** A frame as a stream writer produces it. */
export interface SseFrame {
  event?: string;
  data: unknown;
}

/** Where an SSE body's text goes: a web stream's controller, or the socket when the fast lane serves the request. */
export interface SseSink {
  write(text: string): void;
  /** The last text (if any), then the end of the body. */
  end(text?: string): void;
}

/**
 * After the first bytes, frames are gathered this long before a write: a model's pieces that
 * arrive within it (a burst from the provider) leave as one write system call, and a person
 * reading the stream cannot see a millisecond.
 */
const FRAME_WINDOW_MS = 1;

/**
 * An SSE response body, written to a sink attached once the response exists: a web
 * ReadableStream (`stream()`, through Next.js) or the fast lane's socket (`attach`), which then
 * needs no stream, no reader and no promise per write.
 */
export class SseBody {
  private queued = "";
  private sink: SseSink | undefined;
  private flushTimer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private wrote = false;
  private held = false;
  private ended = false;
  private cancelled = false;

  constructor(private readonly onCancel: () => void) {}

  /**
   * Queues a frame (a string `data` is sent as it is: JSON serialized already, or a literal like
   * `[DONE]`). The first bytes go out at the end of this turn of the event loop, later frames
   * within FRAME_WINDOW_MS of each other as one write.
   */
  send(data: unknown, event?: string): void {
    if (this.ended || this.cancelled) return;
    this.queued += sseFrame(data, event);
    if (this.sink && !this.held)
      this.flushTimer ??= this.wrote
        ? setTimeout(() => this.flush(), FRAME_WINDOW_MS)
        : setImmediate(() => this.flush());
  }

  /**
   * Keeps what is sent from now on for end(): the answer's last frames leave with the bill's,
   * in one write. What the sink has not received yet still goes out when it is attached.
   */
  holdToEnd(): void {
    this.held = true;
  }

  /** Writes what is queued and ends the body (idempotent). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.cancelFlush();
    if (this.sink && !this.cancelled) this.sink.end(this.take());
  }

  /** Starts writing to `sink`: what is queued at once (the first bytes), the rest as it comes. */
  attach(sink: SseSink): void {
    this.sink = sink;
    if (this.ended) return sink.end(this.take());
    this.write(this.take());
  }

  /** The client went away: nothing more is written, and the producer is told. */
  cancel(): void {
    if (this.cancelled || this.ended) return;
    this.cancelled = true;
    this.queued = "";
    this.onCancel();
  }

  /** The body as a web ReadableStream (a response served by Next.js). */
  stream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      start: (c) =>
        this.attach({
          write: (text) => {
            try {
              c.enqueue(Buffer.from(text));
            } catch {
              this.cancel();
            }
          },
          end: (text) => {
            try {
              if (text) c.enqueue(Buffer.from(text));
              c.close();
            } catch {
              // already closed by the client
            }
          },
        }),
      cancel: () => this.cancel(),
    });
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (!this.held && !this.cancelled) this.write(this.take());
  }

  private write(text: string | undefined): void {
    if (!text || !this.sink) return;
    this.wrote = true;
    this.sink.write(text);
  }

  /** A flush scheduled before the first write is an immediate, every later one a timeout. */
  private cancelFlush(): void {
    if (!this.flushTimer) return;
    if (this.wrote) clearTimeout(this.flushTimer as NodeJS.Timeout);
    else clearImmediate(this.flushTimer as NodeJS.Immediate);
    this.flushTimer = undefined;
  }

  private take(): string | undefined {
    if (this.queued === "") return undefined;
    const text = this.queued;
    this.queued = "";
    return text;
  }
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
