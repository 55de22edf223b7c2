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
 * Per-process cache of threads' newest messages, so a run rereads only seqs above the cached
 * newest. Sound because messages are append-only and a thread's seqs are taken under its row lock,
 * so they commit in order; entries are used only after the claim proved the thread is the
 * company's. Bounded by MAX_ROWS per thread and MAX_BYTES in all (estimated, see cachedRow).
 * Eviction drops the older of EVICTION_SAMPLES random entries (Redis's approximated LRU): exact LRU
 * misses every time once threads cycle through more than the cache holds.
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

/** The compact frozen copy the cache keeps of a row, and its estimated heap size (object, content, `extra` or parts as JSON). */
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
 * Keeps what a run read: `newestFirst` are contiguous rows from the newest down; `complete` when
 * the oldest is the thread's first message. Only the newest MAX_ROWS are kept.
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
 * Messages this process stored, ascending, appended when they follow the entry's newest row (else
 * the next claim reads them). A new entry replaces the old, so a run holding the old one keeps what
 * it saw.
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

/**
 * Drops the thread's entry after some of its messages were deleted (the cache is append-only): the
 * thread's next run here reads it again. Another process's entry stays until it is evicted.
 */
export function forgetHistory(companyId: string, threadId: string): void {
  const entry = entries.get(threadId);
  if (entry && entry.companyId === companyId) remove(entry);
}
