import "server-only";
import type postgres from "postgres";
import { RateLimiterRes, type IRateLimiterStoreOptions } from "rate-limiter-flexible";
// The store base class is not re-exported from the package index; it is the documented way to
// write a custom store (every bundled store extends it).
import RateLimiterStoreAbstract from "rate-limiter-flexible/lib/RateLimiterStoreAbstract";
import { retryOnceIfCut } from "@/db/resilience";
import { log } from "@/lib/log";

/** @internal */
export const SWEEP_EVERY_MS = 5 * 60_000;

interface Row {
  points: number;
  /** Milliseconds left in the window, computed by PostgreSQL (no clock skew); -1 = never expires. */
  ms_left: number;
}

/**
 * rate-limiter-flexible's store contract on `rate_limits` as ONE prepared statement per consume
 * (RateLimiterDrizzle rebuilds its query per call). Window arithmetic uses the database clock, so
 * every process counts the same window.
 */
export class RateLimiterPostgresJs extends RateLimiterStoreAbstract {
  private readonly sql: postgres.Sql;

  /** Cheap: there is one per distinct limit, all on one table, swept by one process-wide timer. */
  constructor(opts: IRateLimiterStoreOptions & { storeClient: postgres.Sql }) {
    super(opts);
    this.sql = opts.storeClient;
    startRateLimitSweeper(this.sql);
  }

  _getRateLimiterRes(_rlKey: string, changedPoints: number, row: Row): RateLimiterRes {
    const consumed = Number(row.points);
    // A racing insert from a transaction that started a moment later can put the end of the
    // window a fraction of a millisecond past this statement's now(); never report more than a window.
    const msLeft = Number(row.ms_left) < 0 ? -1 : Math.min(Number(row.ms_left), this.duration * 1000);
    return new RateLimiterRes(Math.max(this.points - consumed, 0), msLeft, consumed, consumed === changedPoints);
  }

  // Through `unsafe` (prepared): the path db/resilience.ts's breaker watches, so a dead database
  // fails fast.
  private query<T>(text: string, params: unknown[]): Promise<T[]> {
    return this.sql.unsafe(text, params as never[], { prepare: true }) as unknown as Promise<T[]>;
  }

  // A count whose connection was cut is sent once more: it may then count twice, a slack of one
  // grant that beats answering the call 503.
  async _upsert(key: string, points: number, msDuration: number, forceExpire = false): Promise<Row> {
    const text = forceExpire ? UPSERT_FORCE : UPSERT;
    const params = [key, points, msDuration > 0 ? msDuration : null];
    const [row] = await retryOnceIfCut(() => this.query<Row>(text, params));
    return row!;
  }

  async _get(key: string): Promise<Row | null> {
    const [row] = await this.query<Row>(
      `SELECT points, COALESCE(GREATEST(0, extract(epoch FROM expire - now()) * 1000), -1)::float8 AS ms_left
       FROM rate_limits WHERE key = $1 AND (expire IS NULL OR expire > now())`,
      [key],
    );
    return row ?? null;
  }

  async _delete(key: string): Promise<boolean> {
    const rows = await this.query(`DELETE FROM rate_limits WHERE key = $1 RETURNING key`, [key]);
    return rows.length > 0;
  }
}

const UPSERT_FORCE = `
  INSERT INTO rate_limits AS t (key, points, expire)
  VALUES ($1, $2, now() + $3::float8 * interval '1 millisecond')
  ON CONFLICT (key) DO UPDATE SET points = EXCLUDED.points, expire = EXCLUDED.expire
  RETURNING t.points, COALESCE(GREATEST(0, extract(epoch FROM t.expire - now()) * 1000), -1)::float8 AS ms_left`;

const UPSERT = `
  INSERT INTO rate_limits AS t (key, points, expire)
  VALUES ($1, $2, now() + $3::float8 * interval '1 millisecond')
  ON CONFLICT (key) DO UPDATE SET
    points = CASE WHEN t.expire <= now() THEN EXCLUDED.points ELSE t.points + EXCLUDED.points END,
    expire = CASE WHEN t.expire <= now() THEN EXCLUDED.expire ELSE t.expire END
  RETURNING t.points, COALESCE(GREATEST(0, extract(epoch FROM t.expire - now()) * 1000), -1)::float8 AS ms_left`;

/**
 * Deletes rows whose window ended over an hour ago (a next call starts a new window anyway). Any process may sweep.
 * @internal
 */
export async function sweepExpiredRateLimits(sql: postgres.Sql): Promise<number> {
  const result = await sql`DELETE FROM rate_limits WHERE expire < now() - interval '1 hour'`;
  return result.count;
}

// On globalThis: a bundler may load this module once per route bundle, and the sweep is per process.
const state = globalThis as { __cockpitRateLimitSweeper?: NodeJS.Timeout };

/** One sweep of the whole table per process, however many limiters exist; never keeps the process alive. Idempotent. */
function startRateLimitSweeper(sql: postgres.Sql): void {
  if (state.__cockpitRateLimitSweeper) return;
  const next = () => {
    const sweeper = setTimeout(() => {
      sweepExpiredRateLimits(sql)
        .catch((err: unknown) => log.warn({ err }, "rate-limit sweep failed; retried at the next interval"))
        .finally(next);
    }, SWEEP_EVERY_MS);
    sweeper.unref();
    state.__cockpitRateLimitSweeper = sweeper;
  };
  next();
}
