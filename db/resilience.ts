import type postgres from "postgres";

/**
 * How the app behaves while PostgreSQL is away: fail fast, never hang. One breaker per process
 * watches every query (`unsafe`, wrapped by `guard`) and transaction. A connection-class error or a
 * query outstanding past SLOW_MS (a silent network) triggers a probe on a separate connection; it
 * opens only when the probe fails, then rejects new and waiting queries with
 * DatabaseUnavailableError (503 with Retry-After) until a probe succeeds. A query on a
 * server-terminated connection (57P01-3: never ran), or a read whose connection closed, is retried
 * once outside transactions; a write may have committed, so it fails, and writes that matter are
 * idempotent or journaled. No imports from lib/: state changes go to listeners.
 */
/** A silent network is noticed after SLOW_MS plus a watchdog tick, then PROBE_TIMEOUT_MS for the probe to fail. */
const SLOW_MS = 600;
const PROBE_TIMEOUT_MS = 1_000;
const PROBE_EVERY_MS = 250;

export class DatabaseUnavailableError extends Error {
  readonly code = "DB_UNAVAILABLE";
  constructor(message = "The database is unavailable") {
    super(message);
    this.name = "DatabaseUnavailableError";
  }
}

const CONNECTION_CODES = new Set([
  "DB_UNAVAILABLE",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
  // admin_shutdown, crash_shutdown, cannot_connect_now (starting up / shutting down)
  "57P01",
  "57P02",
  "57P03",
]);
/** Terminated by the server before the query ran: safe to run again. */
const RETRYABLE_CODES = new Set(["57P01", "57P02", "57P03"]);
/** The connection went away under the query: it may have run, so only a read is run again. */
const LOST_CODES = new Set(["CONNECTION_CLOSED", "ECONNRESET", "EPIPE"]);
const READ_ONLY = /^\s*select\b/i;
/**
 * A probe whose own connection was cut heard from a live server, so it is retried once on a new
 * connection before the breaker opens. Refused or timed-out connections, or 57P03 (starting or
 * stopping), are not retried.
 */
const CUT_CODES = new Set([...LOST_CODES, ...[...RETRYABLE_CODES].filter((c) => c !== "57P03")]);

/**
 * The server was reached, but this connection was cut under the statement (terminated, reset or
 * closed): a new connection will likely answer.
 */
function wasConnectionCut(err: unknown): boolean {
  return codesOf(err).some((c) => CUT_CODES.has(c));
}

/**
 * Runs `attempt`, and once more when its connection was cut. A write may have committed before the
 * cut, so only work whose second run is harmless goes through here.
 */
export async function retryOnceIfCut<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (err) {
    if (!wasConnectionCut(err)) throw err;
    return attempt();
  }
}

/** The probe's own deadline, or its connection's (connect_timeout): on a busy host both can pass while queries are answered. */
const timedOut = (err: unknown) => err instanceof DatabaseUnavailableError || codesOf(err).includes("CONNECT_TIMEOUT");

function codesOf(err: unknown): string[] {
  const out: string[] = [];
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") out.push(code);
  }
  return out;
}

/** True when `err` (or its cause: drizzle wraps driver errors) says the database could not be reached (SQLSTATE class 08 included). */
export function isConnectionError(err: unknown): boolean {
  return codesOf(err).some((c) => CONNECTION_CODES.has(c) || c.startsWith("08"));
}

/** A transaction that lost a deadlock or a serialization conflict: run again, it will pass. */
export function isTransientConflict(err: unknown): boolean {
  return codesOf(err).some((c) => c === "40P01" || c === "40001");
}

const isRetryable = (err: unknown, readOnly: boolean) =>
  codesOf(err).some((c) => RETRYABLE_CODES.has(c) || (readOnly && LOST_CODES.has(c)));

export type DbState = "up" | "down";
/** `abandoned` (on "up"): queries were given up on while it was down; their connections may be stuck. */
type Listener = (state: DbState, reason: string, abandoned: boolean) => void;

interface Outstanding {
  startedAt: number;
  fail: (err: Error) => void;
}

class Breaker {
  state: DbState = "up";
  private listeners: Listener[] = [];
  private outstanding = new Set<Outstanding>();
  private watchdog: NodeJS.Timeout | undefined;
  private probing: Promise<boolean> | undefined;
  private prober: NodeJS.Timeout | undefined;
  probe: () => Promise<unknown> = async () => {};
  downSince = 0;
  private abandoned = false;
  /** When a probe last answered: a slow query does not trigger another one within SLOW_MS. */
  private lastOkAt = 0;
  /** Queries the server answered (results or SQL errors), counted to tell an overloaded server from a gone one. */
  answered = 0;

  onChange(l: Listener) {
    this.listeners.push(l);
  }

  private emit(reason: string) {
    for (const l of this.listeners) {
      try {
        l(this.state, reason, this.abandoned);
      } catch {
        // a listener's failure is not the database's
      }
    }
  }

  /** The probe failed: refuse new queries, and fail the ones still waiting (they will not be answered soon either). */
  open(reason: string) {
    const err = new DatabaseUnavailableError();
    if (this.outstanding.size > 0) this.abandoned = true;
    for (const o of [...this.outstanding]) o.fail(err);
    this.outstanding.clear();
    if (this.state === "down") return;
    this.state = "down";
    this.downSince = Date.now();
    this.emit(reason);
    this.prober = setInterval(() => void this.check(), PROBE_EVERY_MS);
    this.prober.unref();
  }

  private close() {
    if (this.state === "up") return;
    this.state = "up";
    clearInterval(this.prober);
    this.prober = undefined;
    this.emit(`answered after ${Date.now() - this.downSince} ms`);
    this.abandoned = false;
  }

  /**
   * Runs one probe at a time; true when the server answered in time. A timeout while other queries
   * were answered means a slow server, not a gone one: the breaker stays closed, since 503s would
   * only add load.
   */
  check(): Promise<boolean> {
    this.probing ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const answeredBefore = this.answered;
      try {
        await Promise.race([
          retryOnceIfCut(() => this.probe()),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new DatabaseUnavailableError("probe timed out")), PROBE_TIMEOUT_MS);
          }),
        ]);
        this.lastOkAt = Date.now();
        this.close();
        return true;
      } catch (err) {
        if (timedOut(err) && this.state === "up" && this.answered > answeredBefore) {
          this.lastOkAt = Date.now();
          return false;
        }
        this.open(
          err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: probe failed` : "probe failed",
        );
        return false;
      } finally {
        clearTimeout(timer);
        this.probing = undefined;
      }
    })();
    return this.probing;
  }

  /** After a connection-class error, probe at once; one dead connection is not an outage, only an unanswering server is. */
  failure(err: unknown) {
    if (this.state === "up" && isConnectionError(err) && !(err instanceof DatabaseUnavailableError)) void this.check();
  }

  track(o: Outstanding): () => void {
    this.outstanding.add(o);
    if (!this.watchdog) {
      this.watchdog = setInterval(() => this.watch(), SLOW_MS / 4);
      this.watchdog.unref();
    }
    return () => {
      this.outstanding.delete(o);
      if (this.outstanding.size === 0 && this.watchdog) {
        clearInterval(this.watchdog);
        this.watchdog = undefined;
      }
    };
  }

  private watch() {
    const now = Date.now();
    if (this.state === "down" || this.probing || now - this.lastOkAt < SLOW_MS) return;
    for (const o of this.outstanding) {
      if (now - o.startedAt > SLOW_MS) {
        void this.check();
        return;
      }
    }
  }
}

// One breaker and one pool list per process, however many bundles load this module (as db/client.ts keeps its pools).
const g = globalThis as { __cockpitDbBreaker?: Breaker; __cockpitDbGuardedPools?: (() => void)[] };
const breaker: Breaker = (g.__cockpitDbBreaker ??= new Breaker());

export const dbState = (): DbState => breaker.state;
export const onDbStateChange = (l: Listener) => breaker.onChange(l);
/** Probes the server now (readiness checks); true when it answered. */
export const checkDatabase = () => breaker.check();
export const setDatabaseProbe = (probe: () => Promise<unknown>) => {
  breaker.probe = probe;
};

/** Runs `start` under the breaker: refused while it is open, failed when it opens meanwhile. */
function guarded<T>(start: () => PromiseLike<T>, retry: boolean, readOnly = false): Promise<T> {
  if (breaker.state === "down") return Promise.reject(new DatabaseUnavailableError());
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const untrack = breaker.track({
      startedAt: Date.now(),
      fail: (err) => {
        if (done) return;
        done = true;
        reject(err);
      },
    });
    const settle = (fn: () => void) => {
      untrack();
      if (done) return;
      done = true;
      fn();
    };
    const attempt = (again: boolean) =>
      start().then(
        (v) => {
          breaker.answered++;
          settle(() => resolve(v));
        },
        (err: unknown) => {
          if (!done && again && isRetryable(err, readOnly)) return void attempt(false);
          // A SQL error is an answer too (a PostgresError carries the server's severity).
          if (err instanceof Error && "severity" in err && !isConnectionError(err)) breaker.answered++;
          breaker.failure(err);
          settle(() => reject(err));
        },
      );
    attempt(retry);
  });
}

type Sql = postgres.Sql;
type Unsafe = Sql["unsafe"];

/** What `unsafe` returns to drizzle: awaitable with `.values()`, created only when awaited so a refused query never reaches the pool. */
function lazyQuery(make: (values: boolean) => PromiseLike<unknown>, retry: boolean, readOnly: boolean) {
  let values = false;
  let promise: Promise<unknown> | undefined;
  const run = () => (promise ??= guarded(() => make(values), retry, readOnly));
  const q = {
    values() {
      values = true;
      return q;
    },
    then: (a?: (v: unknown) => unknown, b?: (e: unknown) => unknown) => run().then(a, b),
    catch: (b?: (e: unknown) => unknown) => run().catch(b),
    finally: (f?: () => void) => run().finally(f),
  };
  return q;
}

/** Puts a transaction's client under the breaker (its queries are not retried: the transaction is gone). */
function patchTransaction(tx: Sql): Sql {
  const unsafe = tx.unsafe.bind(tx) as Unsafe;
  (tx as { unsafe: unknown }).unsafe = (query: string, args?: unknown[], options?: Record<string, unknown>) =>
    lazyQuery(
      (values) => {
        const q = unsafe(query, args as never, options as never);
        return values ? q.values() : q;
      },
      false,
      false,
    );
  return tx;
}

const swappers: (() => void)[] = (g.__cockpitDbGuardedPools ??= []);
/**
 * After an outage that abandoned queries, every guarded pool starts afresh: old connections may sit
 * behind a dead network for minutes. The old pool is left to finish or time out.
 */
onDbStateChange((state, _reason, abandoned) => {
  if (state === "up" && abandoned) for (const swap of swappers) swap();
});

/** Starts every guarded pool afresh now, as after an outage: for a connection the driver itself left unusable (db/driver-faults.ts). */
export function renewPools(): void {
  for (const swap of swappers) swap();
}

/**
 * A pool under the breaker: drizzle's queries (`unsafe`) and transactions (`begin`) go through it;
 * everything else goes to the current postgres.js pool. `make` builds a pool with preparedByDefault
 * applied.
 */
export function guard(make: () => Sql): Sql {
  let current = make();
  const retired: Sql[] = [];
  swappers.push(() => {
    const fresh = make();
    // drizzle adjusted the first pool's type parsers when it was built: carry them over.
    Object.assign(fresh.options.parsers, current.options.parsers);
    Object.assign(fresh.options.serializers, current.options.serializers);
    retired.push(current);
    current = fresh;
  });
  const unsafe = (query: string, args?: unknown[], options?: Record<string, unknown>) => {
    const pool = current;
    return lazyQuery(
      (values) => {
        const q = pool.unsafe(query, args as never, options as never);
        return values ? q.values() : q;
      },
      true,
      READ_ONLY.test(query),
    );
  };
  const begin = (...a: unknown[]) => {
    const fn = a.at(-1) as (tx: Sql) => unknown;
    const pool = current;
    return guarded(
      () =>
        (pool.begin as (...x: unknown[]) => Promise<unknown>)(...a.slice(0, -1), (tx: Sql) => fn(patchTransaction(tx))),
      false,
    );
  };
  const end = async (opts?: { timeout?: number }) => {
    await Promise.all([current, ...retired.splice(0)].map((p) => p.end(opts)));
  };
  return new Proxy(function guardedSql() {} as unknown as Sql, {
    apply: (_t, _this, args: unknown[]) => (current as unknown as (...x: unknown[]) => unknown)(...args),
    get: (_t, prop) => {
      if (prop === "unsafe") return unsafe;
      if (prop === "begin") return begin;
      if (prop === "end") return end;
      const v = Reflect.get(current as object, prop) as unknown;
      return typeof v === "function" ? (v as (...x: unknown[]) => unknown).bind(current) : v;
    },
    set: (_t, prop, value) => Reflect.set(current as object, prop, value),
  });
}
