import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import { isMainThread } from "node:worker_threads";
import { DatabaseUnavailableError, dbState, isConnectionError, isTransientConflict } from "@/db/resilience";
import { databaseUrl } from "@/db/url";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { billJournal } from "@/lib/process-channels.mjs";
import { onShutdown } from "@/lib/shutdown";

/**
 * The bill journal: writes that must not be lost (a run and its bill, after the upstream already
 * answered) but cannot reach the database now. Each is appended to a local file and synced to disk
 * before the caller goes on, kept in memory, and written to the database as soon as it answers
 * again; the writers are idempotent (by run id), so writing one twice is harmless.
 *
 * Bounded: at most MAX_ENTRIES entries or MAX_BYTES of JSON per process; beyond that the caller
 * gets DatabaseUnavailableError (the client a 503, and no bill: it got no answer either).
 * A crash loses nothing journaled: the file stays, and the next process on this host adopts the
 * files of processes that are no longer alive (recoverJournals). What a crash during an outage
 * loses is only the calls in flight that had not reached the journal yet.
 *
 * One file per process: `$DATA_DIR/journal/<host>-<database tag>-<pid>.jsonl`, one JSON object per line, emptied once
 * everything in it reached the database; the server's jobs thread (lib/jobs/jobs-thread.ts) keeps
 * `<host>-<database tag>-<pid>.jobs.jsonl`, adopted by its main thread when the thread ends.
 */
const MAX_ENTRIES = 10_000;
const MAX_BYTES = 64 * 1024 * 1024;
const RETRY_MS = 250;

type Writer = (payload: never) => Promise<unknown>;

interface Entry {
  kind: string;
  id: string;
  payload: unknown;
  bytes: number;
  onDone?: (result: unknown) => void;
}

/** Process-wide (a process channel), so a dev-mode reload does not start a second journal. */
export interface JournalState {
  writers: Map<string, Writer>;
  queue: Entry[];
  bytes: number;
  draining: boolean;
  fd?: number;
  pendingLines: string[];
  pendingWaiters: { resolve: () => void; reject: (e: unknown) => void }[];
  flushing: boolean;
  /** Entries being appended to the file and not yet in `queue`. */
  appending: number;
}

const state: JournalState = billJournal.getOrInit(() => ({
  writers: new Map(),
  queue: [],
  bytes: 0,
  draining: false,
  pendingLines: [],
  pendingWaiters: [],
  flushing: false,
  appending: 0,
}));

const journalDir = (): string => path.resolve(env.DATA_DIR, "journal");

const HOST = os.hostname().replace(/[^A-Za-z0-9.-]/g, "_");
/** Which database the entries belong to: a file is only ever adopted by a process of the same one. */
const DB_TAG = createHash("sha256").update(databaseUrl()).digest("hex").slice(0, 12);
/**
 * This process's journal file: its main thread's, or its jobs thread's (lib/jobs/jobs-thread.ts).
 * @internal
 */
export const journalFileOf = (jobsThread: boolean) =>
  path.join(journalDir(), `${HOST}-${DB_TAG}-${process.pid}${jobsThread ? ".jobs" : ""}.jsonl`);
const ownFile = () => journalFileOf(!isMainThread);

/** Registers how entries of `kind` are written to the database (idempotently). */
export function registerJournalWriter<T>(kind: string, writer: (payload: T) => Promise<unknown>): void {
  state.writers.set(kind, writer as Writer);
}

function openFile(): number {
  if (state.fd === undefined) {
    fs.mkdirSync(journalDir(), { recursive: true, mode: 0o700 });
    state.fd = fs.openSync(ownFile(), "a", 0o600);
  }
  return state.fd;
}

/** Appends lines and syncs them; concurrent callers share one write and one fdatasync. */
function appendDurably(line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    state.pendingLines.push(line);
    state.pendingWaiters.push({ resolve, reject });
    if (!state.flushing) flush();
  });
}

function flush(): void {
  state.flushing = true;
  const lines = state.pendingLines.splice(0);
  const waiters = state.pendingWaiters.splice(0);
  let fd: number;
  try {
    fd = openFile();
  } catch (err) {
    state.flushing = false;
    for (const w of waiters) w.reject(err);
    return;
  }
  fs.write(fd, lines.join(""), (writeErr) => {
    const done = (err: unknown) => {
      for (const w of waiters) {
        if (err) w.reject(err);
        else w.resolve();
      }
      if (state.pendingLines.length > 0) flush();
      else state.flushing = false;
    };
    if (writeErr) return done(writeErr);
    fs.fdatasync(fd, done);
  });
}

/** Empties the file once everything in it reached the database (and nothing is on its way in). */
function truncateOwnFile(): void {
  if (state.fd === undefined || state.queue.length > 0 || state.flushing || state.appending > 0 || state.draining)
    return;
  try {
    fs.ftruncateSync(state.fd, 0);
  } catch (err) {
    log.warn({ err }, "could not empty the bill journal file");
  }
}

/** Appends one entry's line to this process's file, durably; counted as on its way in meanwhile. */
async function appendOwn(line: string): Promise<void> {
  state.appending++;
  try {
    await appendDurably(`${line}\n`);
  } finally {
    state.appending--;
  }
}

/** Keeps a line that cannot be written aside, next to this process's file, for the operator. */
const deadLetter = (line: string) => fs.appendFileSync(`${ownFile()}.failed`, `${line}\n`, { mode: 0o600 });

/**
 * Keeps `payload` until the database takes it; resolves once it is on disk. `onDone` runs with the
 * writer's result when it reached the database (in this process). @throws DatabaseUnavailableError when full.
 */
export async function journal(
  kind: string,
  id: string,
  payload: unknown,
  onDone?: (result: unknown) => void,
): Promise<void> {
  if (!state.writers.has(kind)) throw new Error(`no journal writer for ${kind}`);
  const line = JSON.stringify({ kind, id, payload });
  const bytes = Buffer.byteLength(line) + 1;
  if (state.queue.length >= MAX_ENTRIES || state.bytes + bytes > MAX_BYTES) {
    throw new DatabaseUnavailableError("The database is unavailable and the bill journal is full");
  }
  await appendOwn(line);
  state.queue.push({ kind, id, payload, bytes, onDone });
  state.bytes += bytes;
  if (state.queue.length === 1)
    log.warn({ kind, id, bytes }, "database unreachable: journaled a bill to write when it returns");
  void drain();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

/** Writes journaled entries in order while the database answers; waits and retries while it does not. */
async function drain(): Promise<void> {
  if (state.draining) return;
  state.draining = true;
  let written = 0;
  try {
    while (state.queue.length > 0) {
      if (dbState() === "down") {
        await sleep(RETRY_MS);
        continue;
      }
      const entry = state.queue[0]!;
      let result: unknown;
      try {
        result = await state.writers.get(entry.kind)!(entry.payload as never);
      } catch (err) {
        if (isConnectionError(err) || err instanceof DatabaseUnavailableError || isTransientConflict(err)) {
          await sleep(RETRY_MS);
          continue;
        }
        // Not an outage: this entry cannot be written (a bug). Kept aside, never retried forever.
        log.error({ err, kind: entry.kind, id: entry.id }, "journaled write failed; moved to the dead-letter file");
        try {
          deadLetter(JSON.stringify({ kind: entry.kind, id: entry.id, payload: entry.payload }));
        } catch (deadErr) {
          log.error({ err: deadErr, id: entry.id }, "could not write the dead-letter file");
        }
      }
      state.queue.shift();
      state.bytes -= entry.bytes;
      written++;
      try {
        entry.onDone?.(result);
      } catch (err) {
        log.warn({ err, id: entry.id }, "journal completion hook failed");
      }
    }
  } finally {
    state.draining = false;
  }
  if (written > 0) log.warn({ written }, "bill journal written to the database");
  truncateOwnFile();
}

/** Set by this process's first recovery pass (main thread), which adopts a predecessor's file under its own name. */
let ownNameChecked = false;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Adopts the journal files of this host's processes that are no longer alive (a crash during an
 * outage), and on the first pass a file under this process's own name that it did not write: their
 * entries join this process's journal (on disk first) and the files are removed.
 * Returns how many entries were adopted.
 */
export async function recoverJournals(): Promise<number> {
  const dir = journalDir();
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  let adopted = 0;
  // In a container the restarted server gets the pid of the one it replaces (a new pid namespace):
  // a file under this process's own name that it has not opened yet is that predecessor's.
  // Its jobs thread's file too: the thread starts at the first job, after this pass (the worker
  // starts before the server listens).
  if (!ownNameChecked && isMainThread) {
    ownNameChecked = true;
    if (state.fd === undefined) adopted += await adoptFile(ownFile());
    adopted += await adoptFile(journalFileOf(true));
  }
  for (const name of names) {
    const m = /^(.+)-([0-9a-f]{12})-(\d+)(\.jobs)?\.jsonl$/.exec(name);
    if (!m || m[1] !== HOST || m[2] !== DB_TAG || Number(m[3]) === process.pid || pidAlive(Number(m[3]))) continue;
    adopted += await adoptFile(path.join(dir, name));
  }
  if (adopted > 0) {
    log.warn({ adopted }, "adopted the bill journal of a process that is gone");
    void drain();
  }
  return adopted;
}

/**
 * The main thread adopts the journal of this process's jobs thread once the thread has ended
 * (stopped, or died): what it could not write yet is written from here. Returns how many entries.
 */
export async function adoptJobsThreadJournal(): Promise<number> {
  if (!isMainThread) return 0;
  const adopted = await adoptFile(journalFileOf(true));
  if (adopted > 0) {
    log.warn({ adopted }, "adopted the bill journal of the jobs thread");
    void drain();
  }
  return adopted;
}

/** Moves the entries of another journal file into this one (on disk first), then removes the file. */
async function adoptFile(file: string): Promise<number> {
  const claimed = `${file}.adopting-${process.pid}`;
  try {
    fs.renameSync(file, claimed); // atomic: one adopter per file
  } catch {
    return 0;
  }
  const entries: { kind: string; id: string; payload: unknown; line: string }[] = [];
  for (const line of fs.readFileSync(claimed, "utf8").split("\n").filter(Boolean)) {
    try {
      entries.push({ ...(JSON.parse(line) as { kind: string; id: string; payload: unknown }), line });
    } catch {
      // a line cut by the crash: it never reached its caller's acknowledgement
    }
  }
  let adopted = 0;
  try {
    for (const { kind, id, payload, line } of entries) {
      // An entry no writer here knows is never dropped: kept aside for the operator.
      if (!state.writers.has(kind)) deadLetter(line);
      else {
        await appendOwn(line);
        const bytes = Buffer.byteLength(line) + 1;
        state.queue.push({ kind, id, payload, bytes });
        state.bytes += bytes;
        adopted++;
      }
    }
  } catch (err) {
    // Our own file could not take them: give the file back for a later attempt (entries already
    // taken are written twice at most, and the writers are idempotent).
    fs.renameSync(claimed, file);
    throw err;
  }
  fs.rmSync(claimed, { force: true });
  return adopted;
}

/**
 * At shutdown: gives the journal up to `ms` to reach the database. What is still waiting stays in
 * the file, which the next server on this host adopts.
 */
async function drainJournal(ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (state.queue.length > 0 && Date.now() < until) await sleep(100);
  truncateOwnFile();
}
onShutdown(() => drainJournal());
