import "server-only";
import type { HistoryRow } from "./stages/history";

/**
 * Per-process cache of threads' newest stored messages, so a run on a thread this process ran
 * before reads only what was added since (its claim asks for `seq > newest cached seq`): a
 * conversation's next turn reads one or two rows instead of a page, and a long thread's run
 * does not re-read the hundreds of messages it sends.
 *
 * Sound because messages are append-only (no path updates or deletes a message; a deleted thread
 * fails the claim first) and a thread's seqs are taken under its row lock (lib/threads/add-messages.ts,
 * lib/runs/persist-run.ts), so messages commit in seq order: once a snapshot shows seq N, every
 * smaller seq is visible too, and "every row above the newest cached one" is exactly what is new,
 * whichever process added it. Entries are used only after the claim proved the thread is the
 * caller's company's (and name their company: another company's lookup misses). Bounded: the newest MAX_ROWS rows of a
 * thread, MAX_BYTES in all (least recently used first out): the server's RSS goal (< 300 MiB under
 * load) leaves it about that much.
 */
const MAX_ROWS = 1024;
const MAX_BYTES = 8 * 1024 * 1024;

interface Entry {
  /** Whose thread it is: a lookup by another company's key finds nothing. */
  companyId: string;
  /** Ascending by seq, contiguous in the thread (no stored message between two of them). */
  rows: HistoryRow[];
  /** The oldest row is the thread's first: nothing older to read. */
  complete: boolean;
  bytes: number;
}

/** By thread id (ids are unique across companies; the entry names its company). */
const entries = new Map<string, Entry>();
let totalBytes = 0;


/** Sizes of rows whose size takes a serialisation to estimate (parts, tool calls): computed once per row. */
const sizes = new WeakMap<HistoryRow, number>();

function isEmpty(o: object): boolean {
  for (const key in o) if (Object.hasOwn(o, key)) return false;
  return true;
}

/**
 * Rough heap size of a row: enough to bound the cache, not an exact measure. A plain-text row
 * (nearly all of them) is sized from its string's length on every call, without the WeakMap: a
 * lookup per cached row per run cost more than the rest of the cache's work together (profiled:
 * 0.022 ms of a run's 0.73 ms CPU at 32 connections).
 */
function rowBytes(row: HistoryRow): number {
  const extra = row.extra;
  const plainExtra = !extra || isEmpty(extra);
  // A row object, its `extra` object, the strings' headers and the entry's share: ~200 bytes.
  if (typeof row.content === "string" && plainExtra) return 200 + row.content.length * 2;
  const known = sizes.get(row);
  if (known !== undefined) return known;
  const content = typeof row.content === "string" ? row.content.length * 2 : JSON.stringify(row.content ?? null).length * 2;
  const size = 200 + content + (plainExtra ? 0 : JSON.stringify(extra).length * 2);
  sizes.set(row, size);
  return size;
}

/** Cached rows are shared by later runs: a stage that changed one in place would change history. */
function freeze(row: HistoryRow): HistoryRow {
  if (Array.isArray(row.content)) {
    for (const part of row.content) if (part && typeof part === "object") Object.freeze(part);
    Object.freeze(row.content);
  }
  if (row.extra) Object.freeze(row.extra);
  return Object.freeze(row);
}

function remove(key: string): void {
  const old = entries.get(key);
  if (!old) return;
  totalBytes -= old.bytes;
  entries.delete(key);
}

/** The thread's cached rows (ascending by seq), marked most recently used. */
export function cachedHistory(companyId: string, threadId: string): { rows: readonly HistoryRow[]; complete: boolean } | undefined {
  const entry = entries.get(threadId);
  if (!entry || entry.companyId !== companyId) return undefined;
  entries.delete(threadId);
  entries.set(threadId, entry);
  return entry;
}

/**
 * Keeps what a run read of its thread: `newestFirst` are contiguous rows from the newest down;
 * `complete` when the oldest of them is the thread's first message. Only the newest MAX_ROWS are kept.
 */
export function rememberHistory(companyId: string, threadId: string, newestFirst: readonly HistoryRow[], complete: boolean): void {
  const key = threadId;
  remove(key);
  if (newestFirst.length === 0) return;
  const kept = newestFirst.length > MAX_ROWS ? newestFirst.slice(0, MAX_ROWS) : newestFirst;
  const rows: HistoryRow[] = new Array(kept.length);
  let bytes = 0;
  for (let i = 0; i < kept.length; i++) {
    const row = kept[kept.length - 1 - i]!;
    rows[i] = Object.isFrozen(row) ? row : freeze(row);
    bytes += rowBytes(row);
  }
  if (bytes > MAX_BYTES / 4) return;
  entries.set(key, { companyId, rows, complete: complete && kept.length === newestFirst.length, bytes });
  totalBytes += bytes;
  for (const oldest of entries.keys()) {
    if (totalBytes <= MAX_BYTES) break;
    remove(oldest);
  }
}
