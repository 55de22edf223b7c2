/** What a sandbox pool is configured with and reports, and the errors its callers tell apart. */

export interface PoolConfig {
  size: number;
  prewarm: number;
  queueTimeoutMs: number;
  bootTimeoutMs: number;
  maxCalls: number;
  maxAgeMs: number;
  maxRssBytes: number;
  /** CPU beyond the allowance (one thread in a call, none idle) over a recent window, on top of CPU_EXCESS_ALLOWANCE_MS, before a kill. */
  idleCpuMs: number;
  /** cpu cgroup quota of each process in % of one core, where the host allows one (0: none). */
  cpuQuotaPercent: number;
  wasmMaxMb: number;
  stdoutMax: number;
  resultMax: number;
  uid: number;
  gid: number;
  /** How often idle processes are checked (CPU, RSS, age). */
  watchdogMs: number;
  /**
   * Hard cap of a process handing over while its successor boots: this many times its call limit,
   * or maxAgeMs + ageGraceMs; past it the company's calls wait for the successor. maxCalls 1 means
   * a fresh process per call.
   */
  hardCapFactor?: number;
  ageGraceMs?: number;
  /** The checkout the runtime comes from (default: the working directory). */
  checkoutDir?: string;
  /** Where a root server copies an unreadable checkout's runtime (default RUNTIME_BASE_DIR). */
  runtimeBaseDir?: string;
  /** Told each process's boot time (ms, spawn to ready). */
  onBoot?: (ms: number) => void;
}

export class QueueTimeoutError extends Error {}
export class CallAbortedError extends Error {}

export interface PoolStats {
  processes: number;
  spares: number;
  busy: number;
  waiting: number;
  /** Processes booting (successors and spares included). */
  booting: number;
  /** Processes handing over to a successor (max calls or max age reached or near). */
  handingOver: number;
  rssBytes: number;
  recycled: Record<string, number>;
}
