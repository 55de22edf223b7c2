import os from "node:os";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { observeSandboxWait, type SandboxWaitOutcome } from "@/lib/observability/metrics/record";
import { probeLayers, type SandboxLayers } from "./layers";
import { logLayers } from "./log-layers";
import { SandboxProcess, type CallOutcome } from "./process";
import { sharedSnapshot } from "./snapshot";
import type { SandboxRequest } from "./protocol";
import { CallAbortedError, QueueTimeoutError, type PoolConfig, type PoolStats } from "./pool-config";

interface Waiter {
  companyId: string;
  resolve: (p: SandboxProcess) => void;
  reject: (err: Error) => void;
  cleanup: () => void;
}

/** V8's own work after a call (GC helpers, compile threads) the CPU account tolerates. */
const CPU_EXCESS_ALLOWANCE_MS = 200;
/** A successor starts booting at this share of the call limit (or max age): at low load it is ready before the limit. */
const PREBOOT_AT = 0.9;
/**
 * Niceness of a background boot (no call waits for it), so it yields to calls being served; reset
 * to 0 once booted. Needs root.
 */
const BACKGROUND_NICE = 10;
/** An idle process that reaches max age and served no call for this long is killed without a successor. */
const HANDOVER_RECENT_MS = 60_000;
/** A company at its fair share may take another company's idle process only once unused this long. */
const FAIR_SHARE_IDLE_MS = 10_000;

/** Hygiene recycling: a successor for the same company boots in the background; the old process is killed once idle after that. */
interface Handover {
  reason: "max calls" | "max age";
  /** The limit itself is reached (before that, from PREBOOT_AT, the successor only boots ahead). */
  retiring: boolean;
  /** Past the hard cap: no further call; the company's calls wait for the successor. */
  exhausted: boolean;
  successor: SandboxProcess | null;
}

/**
 * The pool of runner processes. A process is a clean spare or belongs to one company until it dies;
 * a company without an idle process takes a spare, a free slot, or another company's LRU idle
 * process (killed, never handed over). Safety recycling (timeout, crash, protocol violation, RSS,
 * idle CPU) kills at once; hygiene recycling (maxCalls, maxAgeMs) hands over to a successor booted
 * in the background, and past a hard cap calls wait for it.
 */
export class SandboxPool {
  readonly layers: SandboxLayers;
  protected readonly procs = new Set<SandboxProcess>();
  private readonly waiters: Waiter[] = [];
  private watchdog: NodeJS.Timeout | null = null;
  private closed = false;
  private snapshot: { file: string; dir: string } | null = null;
  private snapshotBuild: Promise<void> | null = null;
  private snapshotSettled = false;
  private readonly callLimits = new WeakMap<SandboxProcess, number>();
  private readonly handovers = new Map<SandboxProcess, Handover>();
  private readonly retired = new WeakSet<SandboxProcess>();
  readonly recycled: Record<string, number> = {};

  constructor(private readonly cfg: PoolConfig) {
    this.layers = probeLayers({
      uid: cfg.uid,
      gid: cfg.gid,
      checkoutDir: cfg.checkoutDir,
      runtimeBaseDir: cfg.runtimeBaseDir,
    });
  }

  /** Runs one request in a process of `companyId`. Rejects with AppError unavailable when no process can boot. */
  async call(
    companyId: string,
    request: SandboxRequest,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<CallOutcome> {
    const waitStart = performance.now();
    let proc: SandboxProcess;
    try {
      proc = await this.acquire(companyId, signal);
    } catch (err) {
      observeSandboxWait(waitStart, waitOutcome(err));
      throw err;
    }
    observeSandboxWait(waitStart, "acquired");
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
    let booting = 0;
    for (const p of this.procs) {
      rss += p.rssBytes() ?? 0;
      if (p.companyId === null) spares += 1;
      if (p.checkedOut) busy += 1;
      if (!p.booted) booting += 1;
    }
    return {
      processes: this.procs.size,
      spares,
      busy,
      waiting: this.waiters.length,
      booting,
      handingOver: this.handovers.size,
      rssBytes: rss,
      recycled: { ...this.recycled },
    };
  }

  /** Kills every process and fails the waiting calls; the pool cannot be used afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.handovers.clear();
    for (const w of this.waiters.splice(0)) {
      w.cleanup();
      w.reject(new AppError("unavailable", "The Python sandbox is shutting down", { wireCode: "sandbox_unavailable" }));
    }
    const exits = [...this.procs].map((p) => new Promise<void>((r) => p.onExit(r)));
    for (const p of this.procs) p.kill("shutdown");
    await Promise.all(exits);
  }

  private acquire(companyId: string, signal?: AbortSignal): Promise<SandboxProcess> {
    if (this.closed)
      return Promise.reject(
        new AppError("unavailable", "The Python sandbox is shut down", { wireCode: "sandbox_unavailable" }),
      );
    this.start();
    return new Promise<SandboxProcess>((resolve, reject) => {
      const timer = setTimeout(() => {
        remove();
        reject(
          new QueueTimeoutError(`The Python sandbox is busy: no process was free within ${this.cfg.queueTimeoutMs} ms`),
        );
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
    const safety = this.safetyReason(proc);
    if (safety) {
      this.retire(proc, safety);
    } else {
      proc.markIdle();
      this.planHandover(proc);
      this.handOverIfReady(proc);
    }
    this.pump();
  }

  /**
   * Hands free processes to waiters in arrival order, then tops up spares. A company holding
   * ceil(size / 2) processes is passed over while another under that share waits, so one burst
   * cannot starve everyone.
   */
  private pump(): void {
    if (this.closed || !this.snapshotSettled) return;
    if (this.waiters.length === 0) return this.topUp();
    const share = Math.ceil(this.cfg.size / 2);
    const held = new Map<string, number>();
    for (const p of this.procs)
      if (p.checkedOut && p.companyId !== null) held.set(p.companyId, (held.get(p.companyId) ?? 0) + 1);
    const atShare = (companyId: string) => (held.get(companyId) ?? 0) >= share;
    const waiting = new Set(this.waiters.map((w) => w.companyId));
    const otherWaitsUnderShare = (companyId: string) => [...waiting].some((c) => c !== companyId && !atShare(c));
    for (const waiter of [...this.waiters]) {
      const over = atShare(waiter.companyId);
      if (over && otherWaitsUnderShare(waiter.companyId)) continue;
      const proc = this.take(waiter.companyId, over);
      if (!proc) continue;
      held.set(waiter.companyId, (held.get(waiter.companyId) ?? 0) + 1);
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      if (!this.waiters.some((w) => w.companyId === waiter.companyId)) waiting.delete(waiter.companyId);
      waiter.cleanup();
      proc.ready.then(
        () => waiter.resolve(proc),
        (err: Error) => {
          waiter.reject(
            new AppError("unavailable", "The Python sandbox could not start", {
              wireCode: "sandbox_unavailable",
              cause: err,
            }),
          );
        },
      );
    }
    this.topUp();
  }

  private topUp(): void {
    this.bootSuccessors();
    this.prewarm();
  }

  /** A process for `companyId`, or null to wait. `atShare`: it holds its fair share already. */
  private take(companyId: string, atShare = false): SandboxProcess | null {
    const free = [...this.procs].filter((p) => p.alive && !p.checkedOut && !this.handovers.get(p)?.exhausted);
    // Own fresh process, else own process handing over (its successor still booting), else a
    // booted spare, else one still booting (own first: a successor), else a new one.
    const own =
      free.find((p) => p.companyId === companyId && p.booted && !this.handovers.has(p)) ??
      free.find((p) => p.companyId === companyId && p.booted) ??
      free.find((p) => p.companyId === null && p.booted) ??
      free.find((p) => p.companyId === companyId) ??
      free.find((p) => p.companyId === null);
    if (own) return this.checkOut(own, companyId);
    // The company's process is past its hard cap and its successor waits for a boot slot
    // (bootSuccessors starts those first): wait for it rather than take another company's slot.
    if (this.awaitingSuccessor(companyId)) return null;
    if (this.slotsUsed() < this.cfg.size) return this.checkOut(this.spawn(companyId), companyId);
    // At its share, a company does not take a process another company used recently.
    const now = Date.now();
    const victim = free
      .filter((p) => p.booted && (!atShare || p.companyId === null || now - p.lastUsedAt >= FAIR_SHARE_IDLE_MS))
      .sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0];
    if (!victim) return null;
    // Another company's idle process: killed and replaced, never reused.
    this.retire(victim, "slot needed by another company");
    return this.checkOut(this.spawn(companyId), companyId);
  }

  private checkOut(proc: SandboxProcess, companyId: string): SandboxProcess {
    if (proc.companyId !== null && proc.companyId !== companyId) throw new Error("sandbox process of another company");
    proc.companyId = companyId;
    proc.checkedOut = true;
    // A call now waits for this boot, so it is no longer background work.
    if (!proc.booted && process.getuid?.() === 0) setNice(proc.pid, 0);
    return proc;
  }

  private spawn(companyId: string | null, background = false): SandboxProcess {
    const proc = new SandboxProcess({
      layers: this.layers,
      gid: this.cfg.gid,
      wasmMaxMb: this.cfg.wasmMaxMb,
      stdoutMax: this.cfg.stdoutMax,
      resultMax: this.cfg.resultMax,
      bootTimeoutMs: this.cfg.bootTimeoutMs,
      snapshot: this.snapshot?.file,
      cpuQuotaPercent: this.cfg.cpuQuotaPercent,
    });
    proc.companyId = companyId;
    this.procs.add(proc);
    const niced = background && process.getuid?.() === 0 && setNice(proc.pid, BACKGROUND_NICE);
    proc.ready.then(
      () => {
        if (niced) setNice(proc.pid, 0);
        this.cfg.onBoot?.(Date.now() - proc.startedAt);
      },
      () => {},
    );
    proc.onExit(() => {
      this.procs.delete(proc);
      this.handovers.delete(proc);
      // Defer: a process that fails to spawn exits before the caller has it in hand.
      setImmediate(() => this.pump());
    });
    return proc;
  }

  private prewarm(): void {
    if (this.closed || !this.watchdog) return;
    let spares = [...this.procs].filter((p) => p.companyId === null && p.alive).length;
    while (spares < this.cfg.prewarm && this.slotsUsed() < this.cfg.size) {
      this.spawn(null, true);
      spares += 1;
    }
  }

  /** Slots in use: a process and the successor it hands over to count as one. */
  private slotsUsed(): number {
    let pairs = 0;
    for (const h of this.handovers.values()) if (h.successor?.alive && this.procs.has(h.successor)) pairs += 1;
    return this.procs.size - pairs;
  }

  private retire(proc: SandboxProcess, reason: string): void {
    // Retired during its call (CPU beyond its allowance): its release must not count it twice.
    if (this.retired.has(proc)) return;
    this.retired.add(proc);
    this.recycled[reason] = (this.recycled[reason] ?? 0) + 1;
    if (reason.startsWith("cpu "))
      log.warn(
        { companyId: proc.companyId, pid: proc.pid, reason, cpuExcessMs: Math.round(proc.cpuExcessMs) },
        "sandbox process killed: code left running",
      );
    this.procs.delete(proc);
    this.handovers.delete(proc);
    proc.kill(reason);
  }

  /** Recycled at once: the process is not kept serving. */
  private safetyReason(proc: SandboxProcess): string | null {
    if (!proc.alive) return proc.endReason ?? "ended";
    const rss = proc.rssBytes();
    if (rss !== null && rss > this.cfg.maxRssBytes) return "rss over limit";
    if (this.cpuOverAllowance(proc)) return proc.checkedOut ? "cpu beyond its call" : "cpu while idle";
    return null;
  }

  /** Reads the process's CPU into its account; true once the account is over the tolerance. */
  private cpuOverAllowance(proc: SandboxProcess): boolean {
    proc.accountCpu();
    return proc.cpuExcessMs > this.cfg.idleCpuMs + CPU_EXCESS_ALLOWANCE_MS;
  }

  /** Where a process stands against its hygiene limits. */
  private hygiene(proc: SandboxProcess): { level: "none" | "preboot" | "retire" | "hard"; reason: Handover["reason"] } {
    const limit = this.callLimit(proc);
    const age = Date.now() - proc.startedAt;
    const hardCalls = this.cfg.maxCalls <= 1 ? limit : limit * (this.cfg.hardCapFactor ?? 4);
    const hardAge = this.cfg.maxAgeMs + (this.cfg.ageGraceMs ?? 60_000);
    if (proc.calls >= hardCalls) return { level: "hard", reason: "max calls" };
    if (age >= hardAge) return { level: "hard", reason: "max age" };
    if (proc.calls >= limit) return { level: "retire", reason: "max calls" };
    if (age >= this.cfg.maxAgeMs) return { level: "retire", reason: "max age" };
    if (proc.calls >= Math.ceil(limit * PREBOOT_AT)) return { level: "preboot", reason: "max calls" };
    if (age >= this.cfg.maxAgeMs * PREBOOT_AT) return { level: "preboot", reason: "max age" };
    return { level: "none", reason: "max calls" };
  }

  /** Starts (or escalates) the handover of a company's process that is near or past a hygiene limit. */
  private planHandover(proc: SandboxProcess): void {
    if (proc.companyId === null) return;
    const { level, reason } = this.hygiene(proc);
    if (level === "none") return;
    let h = this.handovers.get(proc);
    if (!h) {
      h = { reason, retiring: false, exhausted: false, successor: null };
      this.handovers.set(proc, h);
    }
    if (level === "retire" || level === "hard") h.retiring = true;
    if (level === "hard") h.exhausted = true;
  }

  /** Kills a handing-over process once its successor is ready and it is idle. */
  private handOverIfReady(proc: SandboxProcess): void {
    const h = this.handovers.get(proc);
    if (!h || proc.checkedOut || !h.successor?.booted || !h.successor.alive) return;
    this.retire(proc, h.exhausted ? `${h.reason} (hard cap)` : h.reason);
  }

  private awaitingSuccessor(companyId: string): boolean {
    for (const [p, h] of this.handovers)
      if (p.companyId === companyId && h.exhausted && !h.successor?.alive) return true;
    return false;
  }

  /**
   * Gives each handing-over process a successor: the company's fresh process, a booted spare, else
   * a new boot (at most max(1, prewarm) at a time); those past the hard cap first, then past the
   * limit, then ahead.
   */
  private bootSuccessors(): void {
    const rank = (h: Handover) => (h.exhausted ? 0 : h.retiring ? 1 : 2);
    const needing = [...this.handovers]
      .filter(([p, h]) => p.alive && !h.successor?.alive)
      .sort((a, b) => rank(a[1]) - rank(b[1]));
    if (needing.length === 0) return;
    const maxBoots = Math.max(1, this.cfg.prewarm);
    let booting = [...this.procs].filter((p) => p.alive && !p.booted).length;
    for (const [proc, h] of needing) {
      // The company already has a fresh process (it took a spare or a free slot while this one
      // was past its cap or busy): that one is the successor, no boot needed.
      const fresh = [...this.procs].find(
        (p) => p !== proc && p.alive && p.companyId === proc.companyId && !this.handovers.has(p),
      );
      const spare = [...this.procs].find((p) => p.alive && p.booted && !p.checkedOut && p.companyId === null);
      let successor: SandboxProcess;
      if (fresh) {
        successor = fresh;
      } else if (spare) {
        spare.companyId = proc.companyId;
        successor = spare;
      } else {
        if (booting >= maxBoots) continue;
        successor = this.spawn(proc.companyId, true);
        booting += 1;
      }
      h.successor = successor;
      successor.ready.then(
        () => {
          this.handOverIfReady(proc);
          this.pump();
        },
        () => {},
      );
    }
  }

  /** 80 to 100 % of maxCalls, fixed per process, so processes started together do not all reboot at once. */
  private callLimit(proc: SandboxProcess): number {
    let limit = this.callLimits.get(proc);
    if (limit === undefined) {
      limit = Math.max(1, Math.round(this.cfg.maxCalls * (0.8 + 0.2 * Math.random())));
      this.callLimits.set(proc, limit);
    }
    return limit;
  }

  /** Resolves once the snapshot is made or has failed (true: processes boot from it). */
  async snapshotReady(): Promise<boolean> {
    this.start();
    await this.snapshotBuild;
    return this.snapshot !== null;
  }

  private start(): void {
    if (this.watchdog) return;
    logLayers(this.layers, this.cfg.cpuQuotaPercent);
    // No process starts before the snapshot is made or has failed: booting one without it costs as
    // much CPU as making the snapshot, which every later process then saves.
    this.snapshotBuild = sharedSnapshot(this.layers, {
      gid: this.cfg.gid,
      wasmMaxMb: this.cfg.wasmMaxMb,
      timeoutMs: this.cfg.bootTimeoutMs,
    }).then((snap) => {
      this.snapshot = snap;
      this.snapshotSettled = true;
      this.pump();
    });
    this.watchdog = setInterval(() => this.checkIdle(), this.cfg.watchdogMs);
    this.watchdog.unref();
  }

  /**
   * CPU while idle, or beyond one thread in a call, means code left running (a timer, a promise
   * chain). The account spans the gaps between calls; a process in a call is killed at once, an
   * idle one also for its other limits.
   */
  private checkIdle(): void {
    const now = Date.now();
    for (const proc of [...this.procs]) {
      if (!proc.booted || !proc.alive) continue;
      if (proc.checkedOut) {
        if (this.cpuOverAllowance(proc)) this.retire(proc, "cpu beyond its call");
        continue;
      }
      const safety = this.safetyReason(proc);
      if (safety) {
        this.retire(proc, safety);
        continue;
      }
      // Max age of an idle process: a clean spare, or one whose company stopped calling, is
      // killed; one in use hands over to a successor like at max calls.
      const { level, reason } = this.hygiene(proc);
      if (level === "none") continue;
      if (proc.companyId !== null && now - proc.lastUsedAt <= HANDOVER_RECENT_MS) this.planHandover(proc);
      else if (level !== "preboot") {
        this.retire(proc, reason);
        continue;
      }
      this.handOverIfReady(proc);
    }
    this.pump();
  }
}

function waitOutcome(err: unknown): SandboxWaitOutcome {
  if (err instanceof QueueTimeoutError) return "timeout";
  return err instanceof CallAbortedError ? "cancelled" : "unavailable";
}

function setNice(pid: number, nice: number): boolean {
  try {
    os.setPriority(pid, nice);
    return true;
  } catch {
    return false;
  }
}
