import { z } from "zod";

/**
 * The JSON-lines protocol between the host and lib/sandbox/runner/runner.ts. Every request carries
 * a fresh random `id` (the nonce) and its reply must carry it back: any other line on the runner's
 * stdout is a protocol violation and the process is killed.
 */
export type SandboxRequest =
  | { op: "run"; name: string; code: string; args: Record<string, unknown> }
  | { op: "check"; name: string; code: string };

export const ReadyLine = z.object({ type: z.literal("ready") }).strict();

export const RunnerReply = z.object({
  id: z.string().nullable(),
  ok: z.boolean(),
  /** On success of a run: the function's return value as JSON text (decoded by the host). */
  result: z.string().optional(),
  error: z.string().optional(),
  stdout: z.string().optional(),
});
export type RunnerReply = z.infer<typeof RunnerReply>;

/**
 * Splits a byte stream into lines and refuses a line longer than `maxLine` characters. Each chunk
 * is searched once and a partial line is kept in pieces: a megabyte reply arriving in 64 KiB chunks
 * is never rescanned or recopied per chunk.
 */
export class LineSplitter {
  private pending: string[] = [];
  private pendingLength = 0;

  constructor(
    private readonly maxLine: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
  ) {}

  push(chunk: string): void {
    let from = 0;
    let nl: number;
    while ((nl = chunk.indexOf("\n", from)) >= 0) {
      const length = this.pendingLength + nl - from;
      const line = this.pending.length > 0 ? this.pending.join("") + chunk.slice(from, nl) : chunk.slice(from, nl);
      this.pending = [];
      this.pendingLength = 0;
      from = nl + 1;
      if (length > this.maxLine) return this.overflow();
      this.onLine(line);
    }
    if (from < chunk.length) {
      this.pending.push(from === 0 ? chunk : chunk.slice(from));
      this.pendingLength += chunk.length - from;
    }
    if (this.pendingLength > this.maxLine) this.overflow();
  }

  private overflow(): void {
    this.pending = [];
    this.pendingLength = 0;
    this.onOverflow();
  }
}
