import fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { SandboxPool } from "@/lib/sandbox/pool";
import { sleep, testPool } from "./pool";

/**
 * Code a tool leaves running (a JavaScript timer; Workers are gone) gets its process killed even
 * when the company calls again every few hundred ms, never leaving it idle for long.
 */
const ADD = "def add(a, b):\n    return a + b\n";
const LEAVE_TIMER = [
  "def leave():",
  "    import js",
  '    js.eval("setInterval(() => { const t = Date.now(); while (Date.now() - t < 40) {} }, 1)")',
  '    return "left a timer"',
].join("\n");

async function tryAdd(pool: SandboxPool, companyId: string, i: number) {
  const t0 = performance.now();
  const out = await pool.call(companyId, { op: "run", name: "add", code: ADD, args: { a: i, b: 1 } }, 10_000);
  const answered = out.kind === "reply" && out.reply.ok && out.reply.result === String(i + 1);
  return { out, answered, ms: performance.now() - t0 };
}

async function add(pool: SandboxPool, companyId: string, i: number): Promise<{ pid: number; ms: number }> {
  const { out, answered, ms } = await tryAdd(pool, companyId, i);
  expect(answered, JSON.stringify(out)).toBe(true);
  return { pid: out.pid, ms };
}

const cpuRecycles = (pool: SandboxPool) =>
  Object.entries(pool.stats().recycled)
    .filter(([reason]) => reason.startsWith("cpu "))
    .reduce((n, [, v]) => n + v, 0);

describe("CPU a tool leaves running", () => {
  it("a timer left spinning is caught while the company calls every 300 ms, and another company's calls stay fast", async () => {
    const pool = testPool({ size: 3, prewarm: 0 });
    let stop = false;
    const other: number[] = [];
    try {
      await add(pool, "co_cpu_other", 0);
      const bystander = (async () => {
        for (let i = 1; !stop; i++) {
          other.push((await add(pool, "co_cpu_other", i)).ms);
          await sleep(200);
        }
      })();
      const left = await pool.call("co_cpu_spin", { op: "run", name: "leave", code: LEAVE_TIMER, args: {} }, 10_000);
      expect(left.kind === "reply" && left.reply.ok, JSON.stringify(left)).toBe(true);
      const spinning = left.pid;
      const t0 = Date.now();
      // Pinging keeps the process busy again shortly after each call; the ping running when the
      // process is killed fails.
      for (let i = 0; fs.existsSync(`/proc/${spinning}`) && Date.now() - t0 < 30_000; i++) {
        const { out, answered } = await tryAdd(pool, "co_cpu_spin", i);
        expect(answered || (out.pid === spinning && cpuRecycles(pool) >= 1), JSON.stringify(out)).toBe(true);
        await sleep(300);
      }
      const caughtMs = Date.now() - t0;
      stop = true;
      await bystander;
      process.stdout.write(
        `cpu: spinning process caught after ${caughtMs} ms; other company's calls up to ${Math.max(...other).toFixed(0)} ms (${other.length})\n`,
      );
      expect(fs.existsSync(`/proc/${spinning}`)).toBe(false);
      expect(cpuRecycles(pool)).toBeGreaterThanOrEqual(1);
      // The company goes on in a fresh process.
      const next = await add(pool, "co_cpu_spin", 100);
      expect(next.pid).not.toBe(spinning);
      expect(Math.max(...other)).toBeLessThan(2000);
    } finally {
      stop = true;
      await pool.close();
    }
  });
});
