import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readCpuMs, readRssBytes } from "./proc";
import { LineSplitter, ReadyLine, RunnerReply, type SandboxRequest } from "./protocol";
import { spawnRunner, type SandboxLayers } from "./layers";

export interface ProcessOptions {
  layers: SandboxLayers;
  gid: number;
  wasmMaxMb: number;
  stdoutMax: number;
  resultMax: number;
  bootTimeoutMs: number;
  /** A Pyodide memory snapshot to boot from (lib/sandbox/snapshot.ts). */
  snapshot?: string;
  /** cpu cgroup quota in % of one core (0: none). */
  cpuQuotaPercent: number;
}

/** What one call gave, before the pool turns it into a ToolExecution. */
export type CallOutcome =
  | { kind: "reply"; reply: RunnerReply; cpuMs: number; wallMs: number; pid: number }
  | { kind: "failed"; error: string; cpuMs: number; wallMs: number; pid: number };

interface Pending {
  nonce: string;
  settle: (outcome: { kind: "reply"; reply: RunnerReply } | { kind: "failed"; error: string }) => void;
}

const STDERR_TAIL = 4096;
/** Share of wall time the CPU account drains by: V8's background work stays below it, a thread spinning past its call does not. */
const CPU_DRAIN = 0.05;

/**
 * One Deno runner: one company (set at checkout, never changed), one call at a time. Anything
 * unexpected (timeout, crash, a line without the nonce, output over the cap) SIGKILLs it.
 */
export class SandboxProcess {
  readonly pid: number;
  readonly startedAt = Date.now();
  readonly ready: Promise<void>;
  companyId: string | null = null;
  checkedOut = false;
  booted = false;
  calls = 0;
  /** Why it ended (or was told to end); null while alive. */
  endReason: string | null = null;
  /**
   * CPU ms beyond the allowance, a leaky bucket draining at CPU_DRAIN of wall time, so a thread or
   * timer left running fills it however soon the company calls again. Counted from the first call
   * on.
   */
  cpuExcessMs = 0;
  private cpuMark: { cpuMs: number; at: number; inCall: boolean } | null = null;
  lastUsedAt = Date.now();
  stderrTail = "";

  private readonly child: ChildProcess;
  private pending: Pending | null = null;
  private exited = false;
  private readonly exitListeners: (() => void)[] = [];

  constructor(private readonly opts: ProcessOptions) {
    this.child = spawnRunner(opts.layers, opts);
    this.pid = this.child.pid ?? -1;

    let bootSettle: ((err?: Error) => void) | undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      bootSettle = (err) => (err ? reject(err) : resolve());
    });
    this.ready.catch(() => {});
    const bootTimer = setTimeout(() => {
      this.kill(`did not boot within ${opts.bootTimeoutMs} ms`);
    }, opts.bootTimeoutMs);

    // A reply holds the result, the captured stdout (JSON-escaped: up to 6 characters a byte) and
    // some framing.
    const maxLine = opts.resultMax + 6 * opts.stdoutMax + 4096;
    const splitter = new LineSplitter(
      maxLine,
      (line) =>
        this.onLine(line, () => {
          clearTimeout(bootTimer);
          this.booted = true;
          this.lastUsedAt = Date.now();
          bootSettle?.();
        }),
      () => this.kill("protocol violation: output over the cap"),
    );
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => splitter.push(chunk));
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    // EPIPE when the child is gone: its exit handler reports that.
    this.child.stdin!.on("error", () => {});
    const ended = (code: number | null, signal: NodeJS.Signals | null) => {
      if (this.exited) return;
      clearTimeout(bootTimer);
      this.exited = true;
      this.endReason ??= signal ? `ended by ${signal}` : `exited with code ${code}`;
      bootSettle?.(
        new Error(
          `The sandbox process ${this.endReason}${this.stderrTail ? `: ${this.stderrTail.trim().slice(-500)}` : ""}`,
        ),
      );
      this.pending?.settle({ kind: "failed", error: this.failureMessage() });
      this.pending = null;
      for (const l of this.exitListeners) l();
    };
    this.child.on("exit", ended);
    // A process that could not be started emits "error" and never "exit".
    this.child.on("error", (err) => {
      this.endReason ??= `could not start: ${err.message}`;
      if (this.child.pid === undefined) ended(null, null);
      else this.kill(this.endReason);
    });
  }

  get alive(): boolean {
    return !this.exited && this.endReason === null;
  }

  onExit(listener: () => void): void {
    if (this.exited) listener();
    else this.exitListeners.push(listener);
  }

  rssBytes(): number | null {
    return readRssBytes(this.pid);
  }

  cpuMs(): number | null {
    return readCpuMs(this.pid);
  }

  /** Ends the process with SIGKILL (nothing in it gets to run cleanup code). Idempotent. */
  kill(reason: string): void {
    this.endReason ??= reason;
    if (!this.exited) this.child.kill("SIGKILL");
  }

  markIdle(): void {
    this.checkedOut = false;
    this.lastUsedAt = Date.now();
  }

  /**
   * Adds the CPU since the last reading to the account (beyond one thread for a span in a call, all
   * of it idle) and starts the next span (default: as the last). Returns the CPU ms read, null when
   * the process is gone.
   */
  accountCpu(inCall?: boolean): number | null {
    const cpuMs = readCpuMs(this.pid);
    if (cpuMs === null) return null;
    const at = performance.now();
    const mark = this.cpuMark;
    if (mark) {
      const wall = at - mark.at;
      const allowed = mark.inCall ? wall : 0;
      this.cpuExcessMs = Math.max(0, this.cpuExcessMs + (cpuMs - mark.cpuMs) - allowed - CPU_DRAIN * wall);
    }
    if (mark || inCall) this.cpuMark = { cpuMs, at, inCall: inCall ?? mark?.inCall ?? false };
    return cpuMs;
  }

  /**
   * Sends one request and waits for its reply. Never rejects: a timeout, crash, abort or protocol
   * violation is a `failed` outcome and leaves the process killed.
   */
  async call(request: SandboxRequest, timeoutMs: number, signal?: AbortSignal): Promise<CallOutcome> {
    if (this.pending) throw new Error("SandboxProcess.call while a call is in flight");
    this.calls += 1;
    const nonce = randomBytes(16).toString("hex");
    const cpuBefore = this.accountCpu(true) ?? 0;
    const t0 = performance.now();
    const outcome = await new Promise<{ kind: "reply"; reply: RunnerReply } | { kind: "failed"; error: string }>(
      (resolve) => {
        if (!this.alive) return resolve({ kind: "failed", error: this.failureMessage() });
        let done = false;
        const settle: Pending["settle"] = (o) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          this.pending = null;
          resolve(o);
        };
        const timer = setTimeout(() => {
          this.kill("timeout");
          settle({ kind: "failed", error: `The tool timed out after ${timeoutMs} ms` });
        }, timeoutMs);
        const onAbort = () => {
          this.kill("aborted");
          settle({ kind: "failed", error: "The tool call was cancelled" });
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        this.pending = { nonce, settle };
        this.child.stdin!.write(`${JSON.stringify({ ...request, id: nonce })}\n`);
      },
    );
    const wallMs = performance.now() - t0;
    // A killed process has no /proc entry left: its CPU is at least the wall time it was given.
    const cpuAfter = this.accountCpu(false);
    const cpuMs = cpuAfter === null ? Math.round(wallMs) : Math.max(0, cpuAfter - cpuBefore);
    return { ...outcome, cpuMs, wallMs, pid: this.pid };
  }

  private onLine(line: string, onReady: () => void): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return this.violation("a line that is not JSON");
    }
    if (!this.booted) {
      if (ReadyLine.safeParse(parsed).success) return onReady();
      return this.violation("output before the ready line");
    }
    const reply = RunnerReply.safeParse(parsed);
    if (!reply.success || !this.pending || reply.data.id !== this.pending.nonce) {
      return this.violation("a reply without the call's nonce");
    }
    this.pending.settle({ kind: "reply", reply: reply.data });
  }

  private violation(what: string): void {
    const pending = this.pending;
    this.kill(`protocol violation: ${what}`);
    pending?.settle({ kind: "failed", error: "The sandbox process broke the protocol and was stopped" });
  }

  private failureMessage(): string {
    if (this.endReason?.startsWith("protocol violation"))
      return "The sandbox process broke the protocol and was stopped";
    return `The sandbox process stopped during the call (${this.endReason ?? "unknown reason"})`;
  }
}
