import { SandboxPool } from "@/lib/sandbox/pool";
import type { PoolConfig } from "@/lib/sandbox/pool-config";

/** The pool with what the tests look at: each company's processes and every boot time. */
class TestPool extends SandboxPool {
  readonly bootMs: number[];

  constructor(cfg: PoolConfig) {
    const bootMs: number[] = [];
    super({ ...cfg, onBoot: (ms) => bootMs.push(ms) });
    this.bootMs = bootMs;
  }

  pidsOf(companyId: string): number[] {
    return [...this.procs].filter((p) => p.companyId === companyId).map((p) => p.pid);
  }
}

/** A private pool for one test file, with the server's defaults unless the test says otherwise. */
export function testPool(overrides: Partial<PoolConfig> = {}): TestPool {
  return new TestPool({
    size: 2,
    prewarm: 0,
    queueTimeoutMs: 60_000,
    bootTimeoutMs: 60_000,
    maxCalls: 100,
    maxAgeMs: 600_000,
    maxRssBytes: 400 * 1024 * 1024,
    idleCpuMs: 50,
    cpuQuotaPercent: 100,
    wasmMaxMb: 512,
    stdoutMax: 65_536,
    resultMax: 1024 * 1024,
    uid: 65534,
    gid: 65534,
    watchdogMs: 200,
    ...overrides,
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
