import { describe, expect, it } from "vitest";
import type { SandboxPool } from "@/lib/sandbox/pool";
import { sleep, testPool } from "./pool";

/**
 * Fair share of the pool: a company holding ceil(size / 2) processes is passed over while another
 * company waits, and does not take a process another company used recently.
 */
const SPIN = "def spin():\n    while True:\n        pass\n";
const ADD = "def add(a, b):\n    return a + b\n";
const TOOL_TIMEOUT_MS = 3000;

async function add(pool: SandboxPool, companyId: string, i: number): Promise<number> {
  const t0 = performance.now();
  const out = await pool.call(companyId, { op: "run", name: "add", code: ADD, args: { a: i, b: 1 } }, 10_000);
  expect(out.kind === "reply" && out.reply.ok && out.reply.result === String(i + 1), JSON.stringify(out)).toBe(true);
  return performance.now() - t0;
}

describe("fair share of the pool", () => {
  it("a company spinning tools on the whole pool does not hold back another company's trivial calls", async () => {
    const pool = testPool({ size: 4, prewarm: 0 });
    let stop = false;
    const spinners: Promise<void>[] = [];
    try {
      await pool.snapshotReady();
      // Company A: 6 callers keep spinning tools (each ends at the tool timeout) in flight.
      for (let i = 0; i < 6; i++) {
        spinners.push(
          (async () => {
            // The pool's close at the end fails the calls still waiting: that is expected here.
            while (!stop)
              await pool
                .call("co_fair_a", { op: "run", name: "spin", code: SPIN, args: {} }, TOOL_TIMEOUT_MS)
                .catch(() => {});
          })(),
        );
      }
      // A's four processes booted and spinning (boots are slow on a loaded machine).
      const deadline = Date.now() + 90_000;
      while ((pool.stats().busy < 4 || pool.stats().booting > 0) && Date.now() < deadline) await sleep(50);
      expect(pool.pidsOf("co_fair_a")).toHaveLength(4);

      // Company B: its first call waits for one of A's calls to time out and a boot next to A's
      // spinning processes; then it calls repeatedly over more than two rounds of A's timeouts.
      const first = await add(pool, "co_fair_b", 0);
      const later: number[] = [];
      const until = Date.now() + 2.5 * TOOL_TIMEOUT_MS;
      for (let i = 1; Date.now() < until; i++) {
        later.push(await add(pool, "co_fair_b", i));
        await sleep(200);
      }
      process.stdout.write(
        `fair share: B's first call ${first.toFixed(0)} ms, later calls up to ${Math.max(...later).toFixed(0)} ms (${later.length})\n`,
      );
      expect(first).toBeLessThan(TOOL_TIMEOUT_MS + 30_000);
      // Without the fair share, A's queued callers take B's process as soon as B's call returns
      // and each later call of B waits for another of A's timeouts.
      expect(Math.max(...later)).toBeLessThan(TOOL_TIMEOUT_MS / 3);
      // A keeps the rest of the pool.
      expect(pool.pidsOf("co_fair_a").length).toBeGreaterThanOrEqual(2);
    } finally {
      stop = true;
      await pool.close();
      await Promise.allSettled(spinners);
    }
  });
});
