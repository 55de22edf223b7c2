/**
 * A .cpuprofile summarised over chosen time windows only (the measured runs), so start-up,
 * compilation and warm-up do not blur the per-request picture. Windows are CLOCK_MONOTONIC
 * (`process.hrtime.bigint()` in the bench process), the clock V8 stamps profile samples with on Linux.
 */
import { aggregateProfile, sortedDesc } from "./cpuprofile";

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

export function summarizeProfileWindows(
  file: string,
  windows: Window[],
  opts: { top?: number; inclusive?: string[]; root?: string } = {},
): WindowedSummary {
  const ranges = windows.map((w) => [Number(w.fromNs / 1000n), Number(w.toNs / 1000n)] as const);
  const inWindow = (us: number) => ranges.some(([a, b]) => us >= a && us <= b);
  const { totalUs, area, fnSelf, incl } = aggregateProfile(file, opts, inWindow);
  const requests = windows.reduce((s, w) => s + w.requests, 0);
  const windowMs = ranges.reduce((s, [a, b]) => s + (b - a) / 1000, 0);
  const top = opts.top ?? 30;
  const per = (us: number) => us / 1000 / Math.max(1, requests);
  const pct = (us: number) => (totalUs ? (us / totalUs) * 100 : 0);
  return {
    file,
    windowMs,
    requests,
    busyMs: totalUs / 1000,
    busyMsPerReq: per(totalUs),
    byArea: sortedDesc(area)
      .slice(0, top)
      .map(([k, v]) => ({ area: k, selfMs: v / 1000, perReqMs: per(v), pct: pct(v) })),
    byFunction: sortedDesc(fnSelf)
      .slice(0, top)
      .map(([k, v]) => ({ fn: k, selfMs: v / 1000, perReqMs: per(v), pct: pct(v) })),
    inclusive: (opts.inclusive ?? []).map((p) => ({
      match: p,
      totalMs: (incl.get(p) ?? 0) / 1000,
      perReqMs: per(incl.get(p) ?? 0),
      pct: pct(incl.get(p) ?? 0),
    })),
  };
}
