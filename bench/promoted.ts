/**
 * What a running server promotes to its old generation: samples its allocations for --seconds
 * through its inspector (V8's sampling heap profiler, keeping objects that outlived a young-
 * generation collection: promoted ones, live or since collected by a Mark-Compact), then prints
 * the bytes by the innermost app frames, each with an excerpt of the built chunk's source at that
 * position (the production build is minified: the excerpt says which code it is).
 *
 * Start the server under load with the inspector on, e.g.
 *   BENCH_NODE_ARGS="--inspect=127.0.0.1:9339" npm run bench:webhooks -- --rates 250 --rate-duration 30
 * and while the load runs:
 *   npm run bench:promoted -- --port 9339 --seconds 10
 *
 * Promoted bytes are what Mark-Compacts of the server's heap are made of (bench/lib/gc-trace.ts
 * lines their stalls up with a load). Needs Node's WebSocket (--experimental-websocket on Node 20;
 * the npm script passes it).
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "./lib/server";

const { values: flags } = parseArgs({
  options: {
    port: { type: "string", default: "9229" },
    seconds: { type: "string", default: "10" },
    interval: { type: "string", default: "16384" },
    top: { type: "string", default: "25" },
    out: { type: "string" },
  },
});

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  selfSize: number;
  children?: ProfileNode[];
}

async function sample(port: string, seconds: number, interval: number): Promise<ProfileNode> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  if (!targets[0]) throw new Error(`no inspector target on port ${port}`);
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error("inspector connection failed")), { once: true });
  });
  let lastId = 0;
  const pending = new Map<number, (result: unknown) => void>();
  ws.addEventListener("message", (e) => {
    const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: { message: string } };
    if (msg.id === undefined) return;
    if (msg.error) throw new Error(msg.error.message);
    pending.get(msg.id)?.(msg.result);
    pending.delete(msg.id);
  });
  const call = <T>(method: string, params: Record<string, unknown> = {}) =>
    new Promise<T>((resolve) => {
      const id = ++lastId;
      pending.set(id, resolve as (r: unknown) => void);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await call("HeapProfiler.enable");
  await call("HeapProfiler.startSampling", { samplingInterval: interval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const { profile } = await call<{ profile: { head: ProfileNode } }>("HeapProfiler.stopSampling");
  ws.close();
  return profile.head;
}

/** Frames of the runtime and of the database drivers: the app frame below them says who allocated. */
const LIBRARY = /^node:|\/node_modules\/|^$/;

function excerpt(frame: CallFrame): string {
  const file = frame.url.startsWith("file://") ? new URL(frame.url).pathname : frame.url;
  if (!file.startsWith(path.join(ROOT, ".next"))) return "";
  try {
    const line = fs.readFileSync(file, "utf8").split("\n")[frame.lineNumber] ?? "";
    return line.slice(Math.max(0, frame.columnNumber - 60), frame.columnNumber + 100).replace(/\s+/g, " ");
  } catch {
    return "";
  }
}

async function main(): Promise<void> {
  const seconds = Number(flags.seconds);
  process.stderr.write(`[bench] sampling promoted allocations on port ${flags.port} for ${seconds} s\n`);
  const head = await sample(flags.port, seconds, Number(flags.interval));
  if (flags.out) fs.writeFileSync(flags.out, JSON.stringify(head));
  const byFrame = new Map<string, { bytes: number; frame: CallFrame | undefined }>();
  let total = 0;
  const walk = (node: ProfileNode, appFrame: CallFrame | undefined) => {
    const f = node.callFrame;
    const own = LIBRARY.test(f.url) ? appFrame : f;
    if (node.selfSize > 0) {
      total += node.selfSize;
      const key = own ? `${own.functionName || "(anonymous)"} ${path.basename(own.url)}:${own.lineNumber + 1}:${own.columnNumber + 1}` : "(no app frame)";
      const entry = byFrame.get(key) ?? { bytes: 0, frame: own };
      entry.bytes += node.selfSize;
      byFrame.set(key, entry);
    }
    for (const c of node.children ?? []) walk(c, own);
  };
  walk(head, undefined);
  process.stdout.write(`promoted (sampled) in ${seconds} s: ${(total / 1048576).toFixed(1)} MiB, ${(total / 1048576 / seconds).toFixed(2)} MiB/s\n`);
  const rows = [...byFrame.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(flags.top));
  for (const [key, { bytes, frame }] of rows) {
    process.stdout.write(`${(bytes / 1048576).toFixed(2).padStart(8)} MiB ${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${key}\n`);
    const text = frame ? excerpt(frame) : "";
    if (text) process.stdout.write(`${" ".repeat(24)}… ${text} …\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench] ERROR: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
