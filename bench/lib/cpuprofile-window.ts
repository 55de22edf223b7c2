/**
 * A .cpuprofile summarised over chosen time windows only (the measured runs), so start-up,
 * compilation and warm-up do not blur the per-request picture. Windows are CLOCK_MONOTONIC
 * (`process.hrtime.bigint()` in the bench process), the clock V8 stamps profile samples with on Linux.
 */
import fs from "node:fs";
import { resolveFrame, type Frame } from "./cpuprofile";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Window {
  fromNs: bigint;
  toNs: bigint;
  /** Requests answered in the window, to express costs per request. */
  requests: number;
}

export interface WindowedSummary {
  file: string;
  windowMs: number;
  requests: number;
  /** Sampled non-idle CPU in the windows. */
  busyMs: number;
  busyMsPerReq: number;
  byArea: { area: string; selfMs: number; perReqMs: number; pct: number }[];
  byFunction: { fn: string; selfMs: number; perReqMs: number; pct: number }[];
  /** Self time under stacks that contain a frame matching each pattern (synchronous part only). */
  inclusive: { match: string; totalMs: number; perReqMs: number; pct: number }[];
}

export function summarizeProfileWindows(file: string, windows: Window[], opts: { top?: number; inclusive?: string[]; root?: string } = {}): WindowedSummary {
  const root = opts.root ?? process.cwd();
  const prof = JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of prof.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const frames = new Map<number, Frame>();
  const frameOf = (id: number): Frame => {
    let f = frames.get(id);
    if (!f) frames.set(id, (f = resolveFrame(byId.get(id)!.callFrame, root)));
    return f;
  };
  const ranges = windows.map((w) => [Number(w.fromNs / 1000n), Number(w.toNs / 1000n)] as const);
  const inWindow = (us: number) => ranges.some(([a, b]) => us >= a && us <= b);

  const selfUs = new Map<number, number>();
  let t = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i] ?? 0;
    if (!inWindow(t)) continue;
    const id = prof.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (prof.timeDeltas[i + 1] ?? 0));
  }
  const requests = windows.reduce((s, w) => s + w.requests, 0);
  const windowMs = ranges.reduce((s, [a, b]) => s + (b - a) / 1000, 0);
  let totalUs = 0;
  const area = new Map<string, number>();
  const fnSelf = new Map<string, number>();
  const incl = new Map<string, number>();
  const patterns = opts.inclusive ?? [];
  for (const [id, us] of selfUs) {
    if (byId.get(id)!.callFrame.functionName === "(idle)") continue;
    totalUs += us;
    const f = frameOf(id);
    area.set(f.area, (area.get(f.area) ?? 0) + us);
    const key = `${f.fn} ${f.where}`;
    fnSelf.set(key, (fnSelf.get(key) ?? 0) + us);
    if (patterns.length) {
      const hit = new Set<string>();
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const cf = frameOf(cur);
        const label = `${cf.fn} ${cf.where} ${byId.get(cur)!.callFrame.url}`;
        for (const p of patterns) if (!hit.has(p) && label.includes(p)) hit.add(p);
      }
      for (const p of hit) incl.set(p, (incl.get(p) ?? 0) + us);
    }
  }
  const top = opts.top ?? 30;
  const per = (us: number) => us / 1000 / Math.max(1, requests);
  const pct = (us: number) => (totalUs ? (us / totalUs) * 100 : 0);
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return {
    file,
    windowMs,
    requests,
    busyMs: totalUs / 1000,
    busyMsPerReq: per(totalUs),
    byArea: sorted(area).slice(0, top).map(([k, v]) => ({ area: k, selfMs: v / 1000, perReqMs: per(v), pct: pct(v) })),
    byFunction: sorted(fnSelf).slice(0, top).map(([k, v]) => ({ fn: k, selfMs: v / 1000, perReqMs: per(v), pct: pct(v) })),
    inclusive: patterns.map((p) => ({ match: p, totalMs: (incl.get(p) ?? 0) / 1000, perReqMs: per(incl.get(p) ?? 0), pct: pct(incl.get(p) ?? 0) })),
  };
}
