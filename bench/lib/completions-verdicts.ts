/**
 * The goals of the chat-completions matrix (direct, peer, ours × json, stream × 1 and 32
 * connections), judged on the median of the repetitions: each repetition's figure is taken from
 * rows of that repetition only, so a slow phase of the machine touches both sides of a ratio.
 */
import type { Mode, Row, TargetId, Ttfb, Verdict } from "./completions-shapes";
import { spreadOf, spreadText, type Spread } from "./spread";

export const MATRIX_TARGETS = {
  /** Ours' req/s at the high connection count, % of the peer's. */
  vsPeerPct: 120,
  /** Added p50 at one connection: at most the peer's plus this. */
  overPeerP50Ms: 1,
  /** Added p50 at one connection when no peer ran. */
  addedP50Ms: 2,
  addedTtfbMs: 1.5,
  cpuMsPerCall: 1.0,
  rssMib: 250,
} as const;

export interface MatrixInput {
  rows: Row[];
  ttfbs: Ttfb[];
  lowC: number;
  highC: number;
  /** Whether a row ran while other processes kept the machine busy. */
  noisy: (row: Row) => boolean;
}

type Figure = { value: number; disturbed: boolean };

/** One figure per repetition that has every row `pick` needs. */
function perRepetition<T extends { repetition?: number }>(
  items: T[],
  compute: (of: (pred: (x: T) => boolean) => T | undefined) => Figure | null,
): Figure[] {
  const reps = [...new Set(items.map((x) => x.repetition ?? 1))].sort((a, b) => a - b);
  const out: Figure[] = [];
  for (const rep of reps) {
    const f = compute((pred) => items.find((x) => (x.repetition ?? 1) === rep && pred(x)));
    if (f) out.push(f);
  }
  return out;
}

const spread = (figures: Figure[]): Spread => spreadOf(figures.map((f) => f.value));
/** Disturbed when most repetitions were. */
const disturbed = (figures: Figure[]) =>
  figures.length > 0 && figures.filter((f) => f.disturbed).length * 2 > figures.length;

function judge(value: number | null, pass: (v: number) => boolean): Verdict["result"] {
  return value === null ? "n/a" : pass(value) ? "PASS" : "MISS";
}

export function matrixVerdicts({ rows, ttfbs, lowC, highC, noisy }: MatrixInput): Verdict[] {
  const rowOf = (id: TargetId, mode: Mode, c: number) => (r: Row) =>
    r.target === id && r.mode === mode && r.connections === c;
  const figure = (value: number | null | undefined, ...used: (Row | undefined)[]): Figure | null =>
    value == null || used.some((r) => !r) ? null : { value, disturbed: used.some((r) => noisy(r!)) };
  const added = (id: TargetId, mode: Mode) =>
    perRepetition(rows, (of) => {
      const d = of(rowOf("direct", mode, lowC));
      const t = of(rowOf(id, mode, lowC));
      return figure(t && d ? t.p50 - d.p50 : null, d, t);
    });
  const at = (id: TargetId, mode: Mode, field: (r: Row) => number | null) =>
    perRepetition(rows, (of) => {
      const r = of(rowOf(id, mode, highC));
      return figure(r ? field(r) : null, r);
    });
  const verdicts: Verdict[] = [];

  for (const mode of ["json", "stream"] as Mode[]) {
    const f = perRepetition(rows, (of) => {
      const ours = of(rowOf("ours", mode, highC));
      const peer = of(rowOf("peer", mode, highC));
      return figure(ours && peer ? (ours.rps / peer.rps) * 100 : null, ours, peer);
    });
    const s = spread(f);
    verdicts.push({
      name: `${mode}: ours req/s vs peer @${highC}c${spreadText(s, 1)}`,
      value: s.median,
      unit: "% of peer",
      target: `>= ${MATRIX_TARGETS.vsPeerPct} %`,
      result: judge(s.median, (v) => v >= MATRIX_TARGETS.vsPeerPct),
      disturbed: disturbed(f),
    });
  }

  for (const mode of ["json", "stream"] as Mode[]) {
    const f = added("ours", mode);
    const s = spread(f);
    const peer = spread(added("peer", mode)).median;
    const limit = peer === null ? MATRIX_TARGETS.addedP50Ms : peer + MATRIX_TARGETS.overPeerP50Ms;
    verdicts.push({
      name: `${mode}: added p50 @${lowC}c (ours − direct)${spreadText(s, 3)}`,
      value: s.median,
      unit: "ms",
      target:
        peer === null ? `< ${MATRIX_TARGETS.addedP50Ms} ms (no peer)` : `<= peer + ${MATRIX_TARGETS.overPeerP50Ms} ms`,
      peer,
      result: judge(s.median, (v) => (peer === null ? v < limit : v <= limit)),
      disturbed: disturbed(f),
    });
  }

  {
    const ttfbAdded = (id: TargetId) =>
      perRepetition(ttfbs, (of) => {
        const d = of((x) => x.target === "direct");
        const t = of((x) => x.target === id);
        return d && t ? { value: t.p50 - d.p50, disturbed: false } : null;
      });
    const s = spread(ttfbAdded("ours"));
    verdicts.push({
      name: `stream: added time to first byte p50 @1c${spreadText(s, 3)}`,
      value: s.median,
      unit: "ms",
      target: `<= ${MATRIX_TARGETS.addedTtfbMs} ms`,
      peer: spread(ttfbAdded("peer")).median,
      result: judge(s.median, (v) => v <= MATRIX_TARGETS.addedTtfbMs),
      disturbed: false,
    });
  }

  for (const mode of ["json", "stream"] as Mode[]) {
    const f = at("ours", mode, (r) => r.gatewayCpuMsPerReq);
    const s = spread(f);
    verdicts.push({
      name: `${mode}: gateway CPU per call @${highC}c${spreadText(s, 3)}`,
      value: s.median,
      unit: "ms",
      target: `<= ${MATRIX_TARGETS.cpuMsPerCall} ms`,
      peer: spread(at("peer", mode, (r) => r.gatewayCpuMsPerReq)).median,
      result: judge(s.median, (v) => v <= MATRIX_TARGETS.cpuMsPerCall),
      disturbed: disturbed(f),
    });
  }

  {
    const f = at("ours", "stream", (r) => r.gatewayWritesPerReq);
    const s = spread(f);
    const peer = spread(at("peer", "stream", (r) => r.gatewayWritesPerReq)).median;
    verdicts.push({
      name: `stream: gateway write system calls per call @${highC}c${spreadText(s, 2)}`,
      value: s.median,
      unit: "writes",
      target: "<= peer's",
      peer,
      result: peer === null ? "n/a" : judge(s.median, (v) => v <= peer),
      disturbed: false,
    });
  }

  {
    // The gateway's peak within each repetition's rows at the high connection count (the sampler
    // keeps the peak since the server started, which was for that repetition).
    const peakOf = (id: TargetId) =>
      perRepetition(rows, (of) => {
        const peaks = (["json", "stream"] as Mode[]).map((m) => of(rowOf(id, m, highC))?.peakRssMb ?? null);
        const known = peaks.filter((p): p is number => p !== null);
        return known.length ? { value: Math.max(...known), disturbed: false } : null;
      });
    const s = spread(peakOf("ours"));
    verdicts.push({
      name: `peak RSS under the ${highC}-connection rows${spreadText(s, 0)}`,
      value: s.median,
      unit: "MiB",
      target: `< ${MATRIX_TARGETS.rssMib} MiB`,
      peer: spread(peakOf("peer")).median,
      result: judge(s.median, (v) => v < MATRIX_TARGETS.rssMib),
      disturbed: false,
    });
  }
  return verdicts;
}
