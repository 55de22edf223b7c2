import { USAGE_SOURCE, USAGE_SOURCES } from "@/db/enums";
import type { toPublicLedgerEntry } from "@/lib/billing/to-public";
import { fetchJson, type ListPage } from "@/components/panel/fetch-json";

export type LedgerEntry = ReturnType<typeof toPublicLedgerEntry>;

/** One bar segment of the chart: debits of one source on one UTC day. */
export interface DailySpendPoint {
  day: string;
  source: string;
  spent_ot: number;
}

/** GET /api/panel/usage: a ledger page plus the balance and the 30-day spend, whatever the filter. */
export type UsagePage = ListPage<LedgerEntry> & { balance_ot: number; daily: DailySpendPoint[] };

export const LEDGER_PAGE_SIZE = 25;

/** Sources the filter always offers, with friendly labels; others are taken from the data. */
const SOURCE_LABELS: Record<string, string> = {
  [USAGE_SOURCE.voice_call]: "Voice calls",
  [USAGE_SOURCE.whisper]: "Whisper transcription",
  completions: "Chat completions",
  runs: "Runs",
  cli: "Operator grants",
  seed: "Demo credits",
};
export const KNOWN_SOURCES = [...USAGE_SOURCES, "completions", "runs"];

export function sourceLabel(source: string): string {
  return SOURCE_LABELS[source] ?? source;
}

export function fetchUsagePage(source: string | null, after: string | null): Promise<UsagePage> {
  const params = new URLSearchParams({ limit: String(LEDGER_PAGE_SIZE) });
  if (source) params.set("source", source);
  if (after) params.set("after", after);
  return fetchJson<UsagePage>(`/api/panel/usage?${params}`);
}
