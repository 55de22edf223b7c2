import { fmt } from "./table";

/** A figure measured once per repetition: its median and the range the repetitions spanned. */
export interface Spread {
  median: number | null;
  min: number | null;
  max: number | null;
  values: number[];
}

export function spreadOf(values: number[]): Spread {
  if (values.length === 0) return { median: null, min: null, max: null, values };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)!, values };
}

/** "(a–b over N repetitions)", or "" for a single measurement. */
export function spreadText(s: Spread, digits: number): string {
  if (s.values.length < 2) return "";
  return ` (${fmt(s.min, digits)}–${fmt(s.max, digits)} over ${s.values.length} repetitions)`;
}
