import { AppError } from "@/lib/errors";
import { probeLayers, type SandboxLayers } from "./layers";
import { SandboxProcess, type CallOutcome } from "./process";
import type { SandboxRequest } from "./protocol";

export interface PoolConfig {
  size: number;
  prewarm: number;
  queueTimeoutMs: number;
  bootTimeoutMs: number;
  maxCalls: number;
  maxAgeMs: number;
  maxRssBytes: number;
  /** CPU a process may use while idle before it is recycled (0: any tick). */
  idleCpuMs: number;
  wasmMaxMb: number;
  stdoutMax: number;
  resultMax: number;
  uid: number;
  gid: number;
  /** How often idle processes are checked (CPU, RSS, age). */
  watchdogMs: number;
}

interface Waiter {
  companyId: string;
  resolve: (p: SandboxProcess) => void;
  reject: (err: Error) => void;
  cleanup: () => void;
}

const IDLE_SETTLE_MS = 300;

export class QueueTimeoutError extends Error {}
export class CallAbortedError extends Error {}

export interface PoolStats {
  processes: number;
  spares: number;
  busy: number;
  waiting: number;
  rssBytes: number;
  recycled: Record<string, number>;
}

/**
 * The pool of runner processes. A process is either a clean spare (no company yet) or belongs to
 * one company from its first checkout until it dies: a company that finds none of its own idle
 * takes a clean spare, or a free slot, or the least recently used idle process of another company,
 * which is killed and replaced, never handed over. Started lazily by the first call; after that
 * `prewarm` clean spares are kept booted while slots allow.
 */
export class SandboxPool {
  readonly layers: SandboxLayers;
  private readonly procs = new Set<SandboxProcess>();
  private readonly waiters: Waiter[] = [];
  private watchdog: NodeJS.Timeout | null = null;
  private closed = false;
  readonly recycled: Record<string, number> = {};

  constructor(private readonly cfg: PoolConfig) {
    this.layers = probeLayers({ uid: cfg.uid, gid: cfg.gid });
  }

  /** Runs one request in a process of `companyId`. Rejects with AppError unavailable when no process can boot. */
  async call(companyId: string, request: SandboxRequest, timeoutMs: number, signal?: AbortSignal): Promise<CallOutcome> {
    const proc = await this.acquire(companyId, signal);
    try {
      return await proc.call(request, timeoutMs, signal);
    } finally {
      this.release(proc);
    }
  }

  stats(): PoolStats {
    let rss = 0;
    let spares = 0;
    let busy = 0;
    for (const p of this.procs) {
      rss += p.rssBytes() ?? 0;
      if (p.companyId === null) spares += 1;
      if (p.checkedOut) busy += 1;
    }
    return { processes: this.procs.size, spares, busy, waiting: this.waiters.length, rssBytes: rss, recycled: { ...this.recycled } };
  }

  pids(): number[] {
    return [...this.procs].map((p) => p.pid);
  }

  /** Kills every process and fails the waiting calls; the pool cannot be used afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.watchdog) clearInterval(this.watchdog);
    for (const w of this.waiters.splice(0)) {
      w.cleanup();
      w.reject(new AppError("unavailable", "The Python sandbox is shutting down", { wireCode: "sandbox_unavailable" }));
    }
    const exits = [...this.procs].map((p) => new Promise<void>((r) => p.onExit(r)));
    for (const p of this.procs) p.kill("shutdown");
    await Promise.all(exits);
  }

  private acquire(companyId: string, signal?: AbortSignal): Promise<SandboxProcess> {
    if (this.closed) return Promise.reject(new AppError("unavailable", "The Python sandbox is shut down", { wireCode: "sandbox_unavailable" }));
    this.startWatchdog();
    return new Promise<SandboxProcess>((resolve, reject) => {
      const timer = setTimeout(() => {
        remove();
        reject(new QueueTimeoutError(`The Python sandbox is busy: no process was free within ${this.cfg.queueTimeoutMs} ms`));
      }, this.cfg.queueTimeoutMs);
      const onAbort = () => {
        remove();
        reject(new CallAbortedError("The tool call was cancelled"));
      };
      const waiter: Waiter = {
        companyId,
        resolve,
        reject,
        cleanup: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        },
      };
      const remove = () => {
        waiter.cleanup();
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
      this.pump();
    });
  }

  private release(proc: SandboxProcess): void {
    const reason = this.recycleReason(proc);
    if (reason) this.retire(proc, reason);
    else proc.markIdle();
    this.pump();
  }

  /** Hands free processes to waiters in arrival order, then tops up the clean spares. */
  private pump(): void {
    if (this.closed) return;
    for (const waiter of [...this.waiters]) {
      const proc = this.take(waiter.companyId);
      if (!proc) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.cleanup();
      proc.ready.then(
        () => waiter.resolve(proc),
        (err: Error) => {
          waiter.reject(new AppError("unavailable", "The Python sandbox could not start", { wireCode: "sandbox_unavailable", cause: err }));
        },
      );
    }
    this.prewarm();
  }

  private take(companyId: string): SandboxProcess | null {
    const free = [...this.procs].filter((p) => p.alive && !p.checkedOut);
    const own = free.find((p) => p.companyId === companyId && p.booted)
      ?? free.find((p) => p.companyId === null && p.booted)
      ?? free.find((p) => p.companyId === companyId)
      ?? free.find((p) => p.companyId === null);
    if (own) return this.checkOut(own, companyId);
    if (this.procs.size < this.cfg.size) return this.checkOut(this.spawn(companyId), companyId);
    const victim = free.filter((p) => p.booted).sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
    if (!victim) return null;
    // Another company's idle process: killed and replaced, never reused.
    this.retire(victim, "slot needed by another company");
    return this.checkOut(this.spawn(companyId), companyId);
  }

  private checkOut(proc: SandboxProcess, companyId: string): SandboxProcess {
    if (proc.companyId !== null && proc.companyId !== companyId) throw new Error("sandbox process of another company");
    proc.companyId = companyId;
    proc.checkedOut = true;
    return proc;
  }

  private spawn(companyId: string | null): SandboxProcess {
    const proc = new SandboxProcess({
      layers: this.layers,
      gid: this.cfg.gid,
      wasmMaxMb: this.cfg.wasmMaxMb,
      stdoutMax: this.cfg.stdoutMax,
      resultMax: this.cfg.resultMax,
      bootTimeoutMs: this.cfg.bootTimeoutMs,
    });
    proc.companyId = companyId;
    this.procs.add(proc);
    proc.onExit(() => {
      this.procs.delete(proc);
      // Defer: a process that fails to spawn exits before the caller has it in hand.
      setImmediate(() => this.pump());
    });
    return proc;
  }

  private prewarm(): void {
    if (this.closed || !this.watchdog) return;
    let spares = [...this.procs].filter((p) => p.companyId === null && p.alive).length;
    while (spares < this.cfg.prewarm && this.procs.size < this.cfg.size) {
      this.spawn(null);
      spares += 1;
    }
  }

  private retire(proc: SandboxProcess, reason: string): void {
    this.recycled[reason] = (this.recycled[reason] ?? 0) + 1;
    this.procs.delete(proc);
    proc.kill(reason);
  }

  private recycleReason(proc: SandboxProcess): string | null {
    if (!proc.alive) return proc.endReason ?? "ended";
    if (proc.calls >= this.cfg.maxCalls) return "max calls";
    if (Date.now() - proc.startedAt >= this.cfg.maxAgeMs) return "max age";
    const rss = proc.rssBytes();
    if (rss !== null && rss > this.cfg.maxRssBytes) return "rss over limit";
    return null;
  }

  private startWatchdog(): void {
    if (this.watchdog) return;
    this.watchdog = setInterval(() => this.checkIdle(), this.cfg.watchdogMs);
    this.watchdog.unref();
  }

  /**
   * Idle processes must not run: CPU beyond the tolerance means code left running (a JavaScript
   * timer, a pending promise chain). The first IDLE_SETTLE_MS after a call or boot are not counted:
   * V8 finishes its own work there (one 10 ms tick measured); a timer left running is still caught
   * at the next check.
   */
  private checkIdle(): void {
    const now = Date.now();
    for (const proc of [...this.procs]) {
      if (proc.checkedOut || !proc.booted || !proc.alive) continue;
      const cpu = proc.cpuMs();
      if (cpu !== null && now - proc.lastUsedAt < IDLE_SETTLE_MS) {
        proc.idleCpuMs = cpu;
        continue;
      }
      if (cpu !== null && cpu - proc.idleCpuMs > this.cfg.idleCpuMs) {
        this.retire(proc, "cpu while idle");
        continue;
      }
      const reason = this.recycleReason(proc);
      if (reason) this.retire(proc, reason);
    }
    this.pump();
  }
}
