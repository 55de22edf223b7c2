/** Display formatting shared by the panel pages. Fixed locale so server and browser render alike. */
const LOCALE = "en-US";

/** 1 O₮ = $0.001 (SPEC pricing). */
const USD_PER_OT = 0.001;

const otFormat = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 6 });
const usdFormat = new Intl.NumberFormat(LOCALE, {
  style: "currency",
  currency: "USD",
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
});
const smallUsdFormat = new Intl.NumberFormat(LOCALE, {
  style: "currency",
  currency: "USD",
  maximumSignificantDigits: 3,
});
const intFormat = new Intl.NumberFormat(LOCALE);
const compactFormat = new Intl.NumberFormat(LOCALE, { notation: "compact", maximumSignificantDigits: 3 });
const dateTimeFormat = new Intl.DateTimeFormat(LOCALE, { dateStyle: "medium", timeStyle: "short" });
const dateFormat = new Intl.DateTimeFormat(LOCALE, { dateStyle: "medium" });
const relativeFormat = new Intl.RelativeTimeFormat(LOCALE, { numeric: "auto" });

/** O₮ with up to 6 decimals (the ledger's precision), no unit. */
export function formatOt(ot: number): string {
  return otFormat.format(ot);
}

/** Signed amount for ledger rows: "+100", "−12.5" (true minus sign). */
export function formatSignedOt(ot: number): string {
  if (ot > 0) return `+${otFormat.format(ot)}`;
  if (ot < 0) return `\u2212${otFormat.format(-ot)}`;
  return otFormat.format(0);
}

export function formatUsd(ot: number): string {
  return usdFormat.format(ot * USD_PER_OT);
}

/** Like formatUsd, but a cost below a cent keeps 3 significant digits ("$0.0000148") instead of showing $0.00. */
export function formatPreciseUsd(ot: number): string {
  const usd = ot * USD_PER_OT;
  return usd !== 0 && Math.abs(usd) < 0.01 ? smallUsdFormat.format(usd) : usdFormat.format(usd);
}

export function formatInt(n: number): string {
  return intFormat.format(n);
}

/** Token counts at a glance: 128000 → "128K", 1047576 → "1.05M". */
export function formatCompact(n: number): string {
  return compactFormat.format(n);
}

/** Durations: "85 ms" below a second, else "1.24 s". */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** `unix` is seconds (CONTRACT 4). */
export function formatDateTime(unix: number): string {
  return dateTimeFormat.format(unix * 1000);
}

export function formatDate(unix: number): string {
  return dateFormat.format(unix * 1000);
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86_400],
  ["month", 30 * 86_400],
  ["week", 7 * 86_400],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];

export function formatRelative(unix: number, nowMs = Date.now()): string {
  const delta = unix - nowMs / 1000;
  const abs = Math.abs(delta);
  if (abs < 45) return "just now";
  for (const [unit, seconds] of UNITS) {
    if (abs >= seconds) return relativeFormat.format(Math.round(delta / seconds), unit);
  }
  return relativeFormat.format(Math.round(delta / 60), "minute");
}
