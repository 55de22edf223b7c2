/**
 * Closed-loop micro benchmark of an async operation inside this process: `concurrency` loops each
 * awaiting `op()` back to back for `durationMs`. Reports ops/s, exact latency percentiles and this
 * process's CPU per operation (client-side cost: driver, ORM, library).
 */
export interface MicroResult {
  name: string;
  concurrency: number;
  ops: number;
  opsPerSec: number;
  p50: number;
  p99: number;
  /** CPU of this process per op (user+system), ms. */
  cpuMsPerOp: number;
  errors: number;
  firstError?: string;
}

export async function runOps(
  name: string,
  op: (i: number) => Promise<unknown>,
  opts: { concurrency: number; durationMs: number; warmupMs?: number },
): Promise<MicroResult> {
  const loop = async (until: number, lat: number[] | null, counter: { i: number; errors: number; first?: string }) => {
    while (performance.now() < until) {
      const t = performance.now();
      try {
        await op(counter.i++);
      } catch (err) {
        counter.errors++;
        counter.first ??= (err as Error).message;
      }
      lat?.push(performance.now() - t);
    }
  };
  if (opts.warmupMs) {
    const until = performance.now() + opts.warmupMs;
    const c = { i: 0, errors: 0 };
    await Promise.all(Array.from({ length: opts.concurrency }, () => loop(until, null, c)));
  }
  const lat: number[] = [];
  const counter: { i: number; errors: number; first?: string } = { i: 1_000_000, errors: 0 };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const until = t0 + opts.durationMs;
  await Promise.all(Array.from({ length: opts.concurrency }, () => loop(until, lat, counter)));
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.max(0, Math.ceil(p * lat.length) - 1))] ?? Number.NaN;
  return {
    name,
    concurrency: opts.concurrency,
    ops: lat.length,
    opsPerSec: (lat.length / wall) * 1000,
    p50: q(0.5),
    p99: q(0.99),
    cpuMsPerOp: (cpu.user + cpu.system) / 1000 / Math.max(1, lat.length),
    errors: counter.errors,
    firstError: counter.first,
  };
}
