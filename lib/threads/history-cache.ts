import "server-only";

/** A stored message as a run reads it, newest first. */
export interface HistoryRow {
  seq: number;
  role: string;
  content: unknown;
  extra: Record<string, unknown> | null;
  tokens: number | null;
}

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
 * caller's company's (and name their company: another company's lookup misses).
 *
 * Bounded: the newest MAX_ROWS rows of a thread, MAX_BYTES in all (the server's RSS goal, < 300
 * MiB under load, leaves it about that much), counted with an estimate calibrated against V8's heap
 * (CachedRow below). Rows are kept as compact copies of their own (five fields, roles shared,
 * an empty `extra` as null): 225 instead of 337 heap bytes for a 134-character message.
 *
 * Eviction picks EVICTION_SAMPLES entries at random and drops the less recently used (an
 * approximated LRU, as Redis's). Exact LRU kept nothing once a process's threads took turns in a
 * cycle larger than the cache: every run was a miss that re-read its thread whole (the benchmark's
 * 1,280 threads on 32 connections did exactly that). Simulated, 7 runs per thread in turn, a cache
 * holding ~1,500 of them: 2,000 threads miss about half (exact LRU all, 5 samples two thirds), 4,000 nearly all;
 * two samples still favour threads in use.
 */
const MAX_ROWS = 1024;
const MAX_BYTES = 8 * 1024 * 1024;
const EVICTION_SAMPLES = 2;
/** An entry's own heap: its object, its Map entry, its slot and its rows array's header. */
const ENTRY_BYTES = 160;

/** A cached row: frozen (later runs share it), with its estimated heap size. */
interface CachedRow extends HistoryRow {
  readonly bytes: number;
}

interface Entry {
  /** Whose thread it is: a lookup by another company's key finds nothing. */
  companyId: string;
  threadId: string;
  /** Ascending by seq, contiguous in the thread (no stored message between two of them). */
  rows: CachedRow[];
  /** The oldest row is the thread's first: nothing older to read. */
  complete: boolean;
  bytes: number;
  /** Use counter at its last use (the eviction drops the smallest of its sample). */
  usedAt: number;
  /** Its index in `slots`. */
  slot: number;
}

/** By thread id (ids are unique across companies; the entry names its company). */
const entries = new Map<string, Entry>();
/** The same entries in an array, for eviction's random sample. */
const slots: Entry[] = [];
let totalBytes = 0;
let uses = 0;

/** Roles as shared constants: a role read from the database is a string of its own per row. */
function sharedRole(role: string): string {
  switch (role) {
    case "user":
      return "user";
    case "assistant":
      return "assistant";
    case "system":
      return "system";
    case "tool":
      return "tool";
    default:
      return role;
  }
}

function isEmpty(o: object): boolean {
  for (const key in o) if (Object.hasOwn(o, key)) return false;
  return true;
}

/** Characters a one-byte V8 string cannot hold (it then takes two bytes per character). */
const TWO_BYTE = /[^\u0000-\u00ff]/;
const stringBytes = (s: string) => 16 + (TWO_BYTE.test(s) ? 2 * s.length : s.length);

/**
 * The compact frozen copy the cache keeps of a row read from the database, and its heap size: the
 * object and its array slot ~72 bytes, the content string's, and `extra` (tool calls, a name) or
 * parts sized by their JSON. Measured: a 134-character message 225 bytes, estimated 222.
 */
function cachedRow(row: HistoryRow): CachedRow {
  const extra = row.extra && !isEmpty(row.extra) ? row.extra : null;
  let bytes = 72;
  if (typeof row.content === "string") bytes += stringBytes(row.content);
  else {
    if (Array.isArray(row.content)) {
      for (const part of row.content) if (part && typeof part === "object") Object.freeze(part);
      Object.freeze(row.content);
    }
    bytes += 2 * JSON.stringify(row.content ?? null).length;
  }
  if (extra) {
    Object.freeze(extra);
    bytes += 2 * JSON.stringify(extra).length;
  }
  return Object.freeze({
    seq: row.seq,
    role: sharedRole(row.role),
    content: row.content,
    extra,
    tokens: row.tokens,
    bytes,
  });
}

function remove(entry: Entry): void {
  totalBytes -= entry.bytes;
  entries.delete(entry.threadId);
  const last = slots.pop()!;
  if (last !== entry) {
    slots[entry.slot] = last;
    last.slot = entry.slot;
  }
}

/** Drops the least recently used of a few entries picked at random. */
function evictOne(): void {
  let victim: Entry | undefined;
  for (let i = 0; i < EVICTION_SAMPLES; i++) {
    const e = slots[Math.floor(Math.random() * slots.length)]!;
    if (!victim || e.usedAt < victim.usedAt) victim = e;
  }
  if (victim) remove(victim);
}

/** `newestFirst` holds exactly `rows` (ascending, contiguous: the ends and the count decide). */
function sameRows(rows: readonly CachedRow[], newestFirst: readonly HistoryRow[]): boolean {
  return (
    rows.length === newestFirst.length &&
    rows.length > 0 &&
    rows.at(-1) === newestFirst[0] &&
    rows[0] === newestFirst.at(-1)
  );
}

/** The thread's cached rows (ascending by seq), marked as used. */
export function cachedHistory(
  companyId: string,
  threadId: string,
): { rows: readonly HistoryRow[]; complete: boolean } | undefined {
  const entry = entries.get(threadId);
  if (!entry || entry.companyId !== companyId) return undefined;
  entry.usedAt = ++uses;
  return entry;
}

/**
 * Keeps what a run read of its thread: `newestFirst` are contiguous rows from the newest down
 * (rows from the cache as they were handed out, the rest as read); `complete` when the oldest of
 * them is the thread's first message. Only the newest MAX_ROWS are kept.
 */
export function rememberHistory(
  companyId: string,
  threadId: string,
  newestFirst: readonly HistoryRow[],
  complete: boolean,
): void {
  const old = entries.get(threadId);
  // What the run read is what the entry holds (nothing new was read): it stays as it is.
  if (old && old.companyId === companyId && old.complete === complete && sameRows(old.rows, newestFirst)) return;
  if (old) remove(old);
  if (newestFirst.length === 0) return;
  const kept = newestFirst.length > MAX_ROWS ? newestFirst.slice(0, MAX_ROWS) : newestFirst;
  const rows: CachedRow[] = new Array(kept.length);
  let bytes = ENTRY_BYTES;
  for (let i = 0; i < kept.length; i++) {
    const row = kept[kept.length - 1 - i]!;
    const cached = Object.isFrozen(row) && "bytes" in row ? (row as CachedRow) : cachedRow(row);
    rows[i] = cached;
    bytes += cached.bytes;
  }
  if (bytes > MAX_BYTES / 4) return;
  while (slots.length > 0 && totalBytes + bytes > MAX_BYTES) evictOne();
  const entry: Entry = {
    companyId,
    threadId,
    rows,
    complete: complete && kept.length === newestFirst.length,
    bytes,
    usedAt: ++uses,
    slot: slots.length,
  };
  entries.set(threadId, entry);
  slots.push(entry);
  totalBytes += bytes;
}

/**
 * Messages this process stored itself (a run's answer, messages added through the API), ascending
 * by seq, added to the thread's entry when they follow its newest row directly (else the entry
 * stays: the next claim reads what is above it); a thread without an entry gets none. A new entry,
 * not the old one changed: a run that took the old entry before its claim keeps what it saw
 * (lib/runs/stages/history.ts claimAndRead reads it after the claim).
 */
export function appendHistory(companyId: string, threadId: string, ascending: readonly HistoryRow[]): void {
  if (ascending.length === 0) return;
  for (let i = 1; i < ascending.length; i++) if (ascending[i]!.seq !== ascending[i - 1]!.seq + 1) return;
  // Only a thread a run here read has an entry to extend: an import of threads nobody runs here
  // does not push out the entries of threads in use.
  const entry = entries.get(threadId);
  if (!entry || entry.companyId !== companyId || ascending[0]!.seq !== entry.rows.at(-1)!.seq + 1) return;
  const newestFirst: HistoryRow[] = ascending.toReversed();
  for (let i = entry.rows.length - 1; i >= 0; i--) newestFirst.push(entry.rows[i]!);
  rememberHistory(companyId, threadId, newestFirst, entry.complete);
}
