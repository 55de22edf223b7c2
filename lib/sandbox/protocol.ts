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

/** Splits a byte stream into lines and refuses a line longer than `maxLine` characters. */
export class LineSplitter {
  private buffered = "";

  constructor(
    private readonly maxLine: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
  ) {}

  push(chunk: string): void {
    this.buffered += chunk;
    let nl: number;
    while ((nl = this.buffered.indexOf("\n")) >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      if (line.length > this.maxLine) return this.overflow();
      this.onLine(line);
    }
    if (this.buffered.length > this.maxLine) this.overflow();
  }

  private overflow(): void {
    this.buffered = "";
    this.onOverflow();
  }
}
