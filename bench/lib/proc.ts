/**
 * Linux /proc readers for benchmark accounting: CPU time and RSS of a process tree (a server and
 * every process it spawned), whole-machine CPU busy share. Everything returns null/0 instead of
 * throwing when /proc is missing or a process vanished between listing and reading.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";

let clkTck: number | undefined;

/** Clock ticks per second for utime/stime (`getconf CLK_TCK`, 100 on every Linux we run on). */
export function clockTicksPerSecond(): number {
  if (clkTck !== undefined) return clkTck;
  const res = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  const n = Number.parseInt(res.stdout ?? "", 10);
  clkTck = Number.isInteger(n) && n > 0 ? n : 100;
  return clkTck;
}

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** Direct children of `pid`, over all of its threads (/proc/<pid>/task/<tid>/children). */
function childrenOf(pid: number): number[] {
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out = new Set<number>();
  for (const tid of tids) {
    const text = read(`/proc/${pid}/task/${tid}/children`);
    if (!text) continue;
    for (const part of text.trim().split(/\s+/)) {
      const child = Number.parseInt(part, 10);
      if (Number.isInteger(child) && child > 0) out.add(child);
    }
  }
  return [...out];
}

/** `pid` and all of its live descendants. */
export function processTree(pid: number): number[] {
  const seen = new Set<number>();
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (seen.has(p) || !fs.existsSync(`/proc/${p}`)) continue;
    seen.add(p);
    stack.push(...childrenOf(p));
  }
  return [...seen];
}

/** utime + stime of one process in clock ticks; null if it is gone. */
function cpuTicks(pid: number): number | null {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return null;
  // comm (field 2) may contain spaces and parentheses: fields after it start at the last ')'.
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state); utime is field 14, stime field 15.
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? utime + stime : null;
}

/** stime (kernel) ticks of one process; null if it is gone. */
function sysTicks(pid: number): number | null {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return null;
  const v = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[12]);
  return Number.isFinite(v) ? v : null;
}

export function sysTicksOf(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const t = sysTicks(pid);
    if (t !== null) out.set(pid, t);
  }
  return out;
}

/** Summed utime + stime (ticks) of `pids`, remembering each pid's value so deltas survive exits. */
export function cpuTicksOf(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const t = cpuTicks(pid);
    if (t !== null) out.set(pid, t);
  }
  return out;
}

/**
 * Write system calls (/proc/<pid>/io syscw: write(2), writev(2), send…) of each of `pids`, like
 * cpuTicksOf. Each socket write to a peer is one, however small: the count a batching change
 * should lower. A pid whose /proc/<pid>/io is unreadable is left out.
 */
export function writeSyscallsOf(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const n = Number(/^syscw: (\d+)/m.exec(read(`/proc/${pid}/io`) ?? "")?.[1]);
    if (Number.isFinite(n)) out.set(pid, n);
  }
  return out;
}

/**
 * What per-pid counters (cpuTicksOf, writeSyscallsOf) grew between two snapshots. A pid only in
 * `after` (spawned meanwhile) counts from zero; a pid only in `before` (exited meanwhile)
 * contributes nothing more.
 */
export function countBetween(before: Map<number, number>, after: Map<number, number>): number {
  let n = 0;
  for (const [pid, v] of after) n += v - (before.get(pid) ?? 0);
  return n;
}

/** CPU milliseconds spent between two cpuTicksOf snapshots (see countBetween). */
export function cpuMsBetween(before: Map<number, number>, after: Map<number, number>): number {
  return (countBetween(before, after) / clockTicksPerSecond()) * 1000;
}

/** Resident set size of one process in KiB (VmRSS); 0 if it is gone. */
export function rssKb(pid: number): number {
  const status = read(`/proc/${pid}/status`);
  const m = status ? /^VmRSS:\s+(\d+)\s+kB/m.exec(status) : null;
  return m ? Number(m[1]) : 0;
}

/**
 * Polls the summed RSS of a process tree (the tree is re-listed every poll, so children that appear
 * later are included). `peakMb()` is the peak since start or the last `resetPeak()`.
 */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private peakKb = 0;
  private overallPeakKb = 0;
  private lastKb = 0;

  constructor(
    private readonly rootPid: number,
    private readonly intervalMs = 250,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  sample(): number {
    const kb = processTree(this.rootPid).reduce((sum, pid) => sum + rssKb(pid), 0);
    if (kb > 0) {
      this.lastKb = kb;
      this.peakKb = Math.max(this.peakKb, kb);
      this.overallPeakKb = Math.max(this.overallPeakKb, kb);
    }
    return kb;
  }

  resetPeak(): void {
    this.peakKb = this.sample();
  }

  peakMb(): number {
    return this.peakKb / 1024;
  }

  overallPeakMb(): number {
    return this.overallPeakKb / 1024;
  }

  lastMb(): number {
    return this.lastKb / 1024;
  }
}

/** Aggregate CPU jiffies of the machine from /proc/stat: busy and total. */
export interface MachineCpu {
  busy: number;
  total: number;
}

export function machineCpu(): MachineCpu | null {
  const line = read("/proc/stat")?.split("\n")[0];
  if (!line?.startsWith("cpu ")) return null;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest is already inside user)
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = v;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/** Share of all cores that was busy between two snapshots, in % of the whole machine. */
export function machineBusyPct(before: MachineCpu | null, after: MachineCpu | null): number | null {
  if (!before || !after || after.total === before.total) return null;
  return ((after.busy - before.busy) / (after.total - before.total)) * 100;
}

/** CPU ticks and command name of every process on the machine. */
export interface ProcSnapshot {
  ticks: Map<number, number>;
  comm: Map<number, string>;
}

export function snapshotAll(): ProcSnapshot {
  const ticks = new Map<number, number>();
  const comm = new Map<number, string>();
  let entries: string[] = [];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return { ticks, comm };
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const stat = read(`/proc/${e}/stat`);
    if (!stat) continue;
    const pid = Number(e);
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks.set(pid, Number(rest[11]) + Number(rest[12]));
    comm.set(pid, stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")));
  }
  return { ticks, comm };
}

/**
 * Cores used between two snapshots by processes not in `exclude`, grouped by command name, busiest
 * first: who else was using the machine during a measurement.
 */
export function otherProcesses(
  before: ProcSnapshot,
  after: ProcSnapshot,
  exclude: Set<number>,
  wallMs: number,
  top = 6,
): { comm: string; cores: number }[] {
  const byComm = new Map<string, number>();
  for (const [pid, t] of after.ticks) {
    if (exclude.has(pid)) continue;
    const d = t - (before.ticks.get(pid) ?? 0);
    if (d <= 0) continue;
    const name = after.comm.get(pid) ?? "?";
    byComm.set(name, (byComm.get(name) ?? 0) + d);
  }
  return [...byComm]
    .map(([comm, ticks]) => ({ comm, cores: ticks / clockTicksPerSecond() / (wallMs / 1000) }))
    .filter((x) => x.cores >= 0.01)
    .sort((a, b) => b.cores - a.cores)
    .slice(0, top);
}
