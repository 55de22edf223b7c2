import { fmt } from "./table";

/** A figure measured once per repetition: its median and the range the repetitions spanned. */
export interface Spread {
  median: number | null;
  min: number | null;
  max: number | null;
  values: number[];
}

/** The median of the finite values; NaN when there are none. */
export function median(xs: number[]): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

export function spreadOf(values: number[]): Spread {
  if (values.length === 0) return { median: null, min: null, max: null, values };
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), values };
}

/** "(a–b over N repetitions)", or "" for a single measurement. */
export function spreadText(s: Spread, digits: number): string {
  if (s.values.length < 2) return "";
  return ` (${fmt(s.min, digits)}–${fmt(s.max, digits)} over ${s.values.length} repetitions)`;
}
