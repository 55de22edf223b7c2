/**
 * What a running server promotes to its old generation: samples its allocations for --seconds
 * through its inspector (V8's sampling heap profiler, keeping objects that outlived a young-
 * generation collection: promoted ones, live or since collected by a Mark-Compact), then prints
 * the bytes by the innermost frame of the app's own code (lib/, db/, app/, scripts/), the build's
 * minified frames mapped back to their sources (bench/lib/cpuprofile.ts resolveFrame).
 *
 * Start the server under load with the inspector on, e.g.
 *   BENCH_NODE_ARGS="--inspect=127.0.0.1:9339" npm run bench:webhooks -- --rates 250 --rate-duration 30
 * and while the load runs:
 *   npm run bench:promoted -- --port 9339 --seconds 10
 *
 * With --all it samples every allocation instead (objects a scavenge collected as well): where a
 * request's garbage comes from, e.g. runs against chat completions under the same load.
 *
 * Promoted bytes are what Mark-Compacts of the server's heap are made of (bench/lib/gc-trace.ts
 * lines their stalls up with a load). Needs Node's WebSocket (--experimental-websocket on Node 20;
 * the npm script passes it).
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import { resolveFrame, type CallFrame, type Frame } from "./lib/cpuprofile";
import { ROOT } from "./lib/server";

const { values: flags } = parseArgs({
  options: {
    port: { type: "string", default: "9229" },
    seconds: { type: "string", default: "10" },
    interval: { type: "string", default: "16384" },
    top: { type: "string", default: "25" },
    out: { type: "string" },
    /** Every allocation sampled, not only promoted ones (objects a scavenge collected too). */
    all: { type: "boolean", default: false },
  },
});

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  selfSize: number;
  children?: ProfileNode[];
}

async function sample(port: string, seconds: number, interval: number, all: boolean): Promise<ProfileNode> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  if (!targets[0]) throw new Error(`no inspector target on port ${port}`);
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error("inspector connection failed")), { once: true });
  });
  let lastId = 0;
  const pending = new Map<number, { resolve: (result: unknown) => void; reject: (err: Error) => void }>();
  ws.addEventListener("message", (e) => {
    const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: { message: string } };
    const waiter = msg.id === undefined ? undefined : pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id!);
    if (msg.error) waiter.reject(new Error(`inspector: ${msg.error.message}`));
    else waiter.resolve(msg.result);
  });
  ws.addEventListener("close", () => {
    for (const w of pending.values()) w.reject(new Error("the inspector connection closed (the server exited?)"));
    pending.clear();
  });
  const call = <T>(method: string, params: Record<string, unknown> = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = ++lastId;
      pending.set(id, { resolve: resolve as (r: unknown) => void, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  await call("HeapProfiler.enable");
  await call("HeapProfiler.startSampling", {
    samplingInterval: interval,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: all,
  });
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const { profile } = await call<{ profile: { head: ProfileNode } }>("HeapProfiler.stopSampling");
  ws.close();
  return profile.head;
}

/**
 * The app's own code, as resolveFrame names it: a bundled source (lib/…, app/…) or a file of the
 * checkout run as it is (scripts/server/*.mjs, the fast lane). Packages and node internals are not.
 */
const isApp = (f: Frame) =>
  /^(lib|db|app|scripts|components)\//.test(f.area) ||
  (f.area.startsWith(`${ROOT}/`) && !f.area.includes("/node_modules/"));
const shown = (f: Frame) => `${f.fn} ${f.where.startsWith(`${ROOT}/`) ? f.where.slice(ROOT.length + 1) : f.where}`;

async function main(): Promise<void> {
  const seconds = Number(flags.seconds);
  process.stderr.write(
    `[bench] sampling ${flags.all ? "all" : "promoted"} allocations on port ${flags.port} for ${seconds} s\n`,
  );
  const head = await sample(flags.port, seconds, Number(flags.interval), flags.all!);
  if (flags.out) fs.writeFileSync(flags.out, JSON.stringify(head));
  const byFrame = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode, appFrame: string) => {
    const f = resolveFrame(node.callFrame, ROOT);
    const own = isApp(f) ? shown(f) : appFrame;
    if (node.selfSize > 0) {
      total += node.selfSize;
      byFrame.set(own, (byFrame.get(own) ?? 0) + node.selfSize);
    }
    for (const c of node.children ?? []) walk(c, own);
  };
  walk(head, "(no app frame: runtime, drivers, Next.js)");
  process.stdout.write(
    `${flags.all ? "allocated" : "promoted"} (sampled) in ${seconds} s: ${(total / 1048576).toFixed(1)} MiB, ${(total / 1048576 / seconds).toFixed(2)} MiB/s\n`,
  );
  const rows = [...byFrame.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(flags.top));
  for (const [key, bytes] of rows)
    process.stdout.write(
      `${(bytes / 1048576).toFixed(2).padStart(8)} MiB ${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${key}\n`,
    );
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench] ERROR: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
