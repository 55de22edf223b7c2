import fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { SandboxPool } from "@/lib/sandbox/pool";
import { sleep, testPool } from "./pool";

/**
 * Hygiene recycling (max calls, max age) is a handover: a successor of the same company boots in
 * the background while the old process goes on serving; safety recycling kills at once.
 */
const ADD = "def add(a, b):\n    return a + b\n";
const SPIN = "def spin():\n    while True:\n        pass\n";

const alive = (pid: number) => fs.existsSync(`/proc/${pid}`);

async function add(pool: SandboxPool, companyId: string, i: number) {
  const t0 = performance.now();
  const out = await pool.call(companyId, { op: "run", name: "add", code: ADD, args: { a: i, b: 1 } }, 10_000);
  const ms = performance.now() - t0;
  expect(out.kind === "reply" && out.reply.ok && out.reply.result === String(i + 1), JSON.stringify(out)).toBe(true);
  return { pid: out.pid, ms };
}

async function until(cond: () => boolean, ms: number) {
  const deadline = Date.now() + ms;
  while (!cond() && Date.now() < deadline) await sleep(20);
  return cond();
}

describe("handover at max calls", () => {
  it("a company's calls never wait for a boot while its successor boots; the successor is the same company's; the old process is killed once it is ready", async () => {
    // size 2 for 2 companies: every successor exceeds the pool size while it boots.
    const pool = testPool({ size: 2, prewarm: 0, maxCalls: 5, hardCapFactor: 1000 });
    try {
      const companies = ["co_ho_a", "co_ho_b"];
      const seen = new Map<string, { pids: number[]; latencies: number[] }>(
        companies.map((c) => [c, { pids: [], latencies: [] }]),
      );
      let overlapSeen = false;
      let crossed = false;
      const sampler = setInterval(() => {
        const [a, b] = companies.map((c) => pool.pidsOf(c));
        if (a!.some((pid) => b!.includes(pid))) crossed = true;
        if (a!.length > 1 || b!.length > 1) overlapSeen = true;
      }, 10);
      try {
        await Promise.all(
          companies.map(async (c) => {
            const s = seen.get(c)!;
            const first = await add(pool, c, 0);
            s.pids.push(first.pid);
            const deadline = Date.now() + 90_000;
            // A handover each (two processes), calls 25 ms apart, and a few calls in the successor.
            let inSuccessor = 0;
            for (let i = 1; inSuccessor < 5 && Date.now() < deadline; i++) {
              const r = await add(pool, c, i);
              s.pids.push(r.pid);
              s.latencies.push(r.ms);
              if (r.pid !== s.pids[0]) inSuccessor += 1;
              await sleep(25);
            }
          }),
        );
      } finally {
        clearInterval(sampler);
      }
      const [a, b] = companies.map((c) => seen.get(c)!);
      expect(new Set(a!.pids).size).toBeGreaterThanOrEqual(2);
      expect(new Set(b!.pids).size).toBeGreaterThanOrEqual(2);
      // Never a process of the other company.
      expect(a!.pids.filter((pid) => b!.pids.includes(pid))).toEqual([]);
      expect(crossed).toBe(false);
      expect(overlapSeen).toBe(true);
      const slowest = Math.max(...a!.latencies, ...b!.latencies);
      const boots = pool.bootMs.slice(2); // the successors' boots (the first two are the companies' first processes)
      process.stdout.write(`handover: slowest call ${slowest.toFixed(1)} ms, successor boots ${boots.join(", ")} ms\n`);
      expect(boots.length).toBeGreaterThanOrEqual(2);
      // No call waited for a boot: each is far below the successors' boot time (seconds on a
      // loaded machine, ~0.5 s on a quiet one).
      expect(slowest).toBeLessThan(250);
      expect(slowest).toBeLessThan(Math.min(...boots) / 2);
      // Calls per process: about the limit (4 or 5, no hard cap here), never far beyond it.
      for (const s of [a!, b!]) {
        const counts = new Map<number, number>();
        for (const pid of s.pids) counts.set(pid, (counts.get(pid) ?? 0) + 1);
        for (const n of [...counts.values()].slice(0, -1)) expect(n).toBeGreaterThanOrEqual(4);
      }
      // Each old process is gone; the last one of each company serves on.
      const old = [...new Set(a!.pids)].slice(0, -1).concat([...new Set(b!.pids)].slice(0, -1));
      expect(await until(() => old.every((pid) => !alive(pid)), 3000)).toBe(true);
      expect(pool.recycled["max calls"]).toBeGreaterThanOrEqual(2);
      expect(pool.pidsOf("co_ho_a")).toContain(a!.pids.at(-1));
      expect(pool.pidsOf("co_ho_b")).toContain(b!.pids.at(-1));
    } finally {
      await pool.close();
    }
  }, 150_000);

  it("past the hard cap a company's calls wait for the successor instead of exceeding it", async () => {
    const pool = testPool({ size: 1, prewarm: 0, maxCalls: 5, hardCapFactor: 2 });
    try {
      const calls: { pid: number; ms: number }[] = [];
      // Back to back: the successor (a boot) cannot be ready before 2 × the limit.
      for (let i = 0; i < 25; i++) calls.push(await add(pool, "co_cap", i));
      const counts = new Map<number, number>();
      for (const c of calls) counts.set(c.pid, (counts.get(c.pid) ?? 0) + 1);
      expect(counts.size).toBeGreaterThanOrEqual(2);
      for (const n of counts.values()) expect(n).toBeLessThanOrEqual(10);
      // Killed as the successor became ready, or earlier by the idle-CPU watchdog while it waited.
      expect(
        (pool.recycled["max calls (hard cap)"] ?? 0) + (pool.recycled["cpu while idle"] ?? 0),
      ).toBeGreaterThanOrEqual(1);
      // The call after the cap waited for the boot.
      expect(Math.max(...calls.slice(1).map((c) => c.ms))).toBeGreaterThan(200);
    } finally {
      await pool.close();
    }
  });
});

describe("safety recycling during a handover", () => {
  it("a process that times out while its successor boots is killed at once, not kept serving", async () => {
    const pool = testPool({ size: 1, prewarm: 0, maxCalls: 5, hardCapFactor: 1000 });
    try {
      let last = await add(pool, "co_safe", 0);
      const old = last.pid;
      for (let i = 1; pool.pidsOf("co_safe").length < 2 && i < 20; i++) last = await add(pool, "co_safe", i);
      expect(last.pid).toBe(old);
      expect(pool.pidsOf("co_safe")).toHaveLength(2);
      const successor = pool.pidsOf("co_safe").find((pid) => pid !== old)!;
      const spin = await pool.call("co_safe", { op: "run", name: "spin", code: SPIN, args: {} }, 300);
      expect(spin).toMatchObject({ kind: "failed", pid: old });
      expect(await until(() => !alive(old), 2000)).toBe(true);
      expect(pool.pidsOf("co_safe")).toEqual([successor]);
      expect(pool.recycled.timeout).toBe(1);
      // The company goes on in its successor.
      expect((await add(pool, "co_safe", 7)).pid).toBe(successor);
    } finally {
      await pool.close();
    }
  });
});
