/**
 * A server stand-in for test/sandbox/lifecycle.test.ts: starts a pool with one idle process and
 * one stuck in an infinite loop, prints their pids as one JSON line, and waits to be killed.
 */
import { runTool } from "@/lib/sandbox";
import { sleep, testPool } from "./pool";

const pool = testPool({ size: 2 });
const add = "def add(a, b):\n    return a + b\n";
await runTool({ companyId: "co_idle", name: "add", code: add, args: { a: 1, b: 2 } }, pool);
void runTool(
  {
    companyId: "co_busy",
    name: "spin",
    code: "def spin():\n    while True:\n        pass\n",
    args: {},
    timeoutMs: 600_000,
  },
  pool,
);
while (pool.pidsOf("co_busy").length === 0) await sleep(50);
await sleep(2000);
process.stdout.write(`${JSON.stringify({ idle: pool.pidsOf("co_idle"), busy: pool.pidsOf("co_busy") })}\n`);
setInterval(() => {}, 1000);
