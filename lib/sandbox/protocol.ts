import { z } from "zod";

/**
 * JSON lines between the host and runner.ts. Each request carries a random `id` (nonce) its reply
 * must echo: any other stdout line is a protocol violation and kills the process.
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

/** Splits a byte stream into lines, refusing one over `maxLine`; each chunk is scanned once, never rescanned or recopied. */
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
