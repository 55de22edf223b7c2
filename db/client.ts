import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { corkedSocketOption } from "./corked-socket";
import { preparedByDefault } from "./prepared";
import { guard, setDatabaseProbe } from "./resilience";
import * as schema from "./schema";
import { databaseUrl } from "./url";

export type Db = PostgresJsDatabase<typeof schema>;

// On globalThis so Next's dev reloads and test files importing this twice share pools instead of
// leaking them.
const globalForDb = globalThis as unknown as {
  __cockpitSql?: postgres.Sql;
  __cockpitDb?: Db;
  __cockpitRelaxedSql?: postgres.Sql;
  __cockpitRelaxedDb?: Db;
  __cockpitClaimSql?: postgres.Sql;
};

/**
 * Outage behaviour (see db/resilience.ts): connection attempts give up after CONNECT_TIMEOUT_S, a
 * pool that lost its server retries quickly instead of backing off for long, and connections are
 * recycled (stale after a failover).
 */
const CONNECT_TIMEOUT_S = 2;
const resilient = {
  connect_timeout: CONNECT_TIMEOUT_S,
  backoff: (retries: number) => Math.min(0.5, 0.05 * 2 ** retries) * (0.5 + Math.random() / 2),
  max_lifetime: 300 + Math.random() * 300,
  onnotice: () => {},
  // Writes of one tick leave in one system call (db/corked-socket.ts).
  ...corkedSocketOption(databaseUrl()),
};

export const sql: postgres.Sql =
  globalForDb.__cockpitSql ??
  guard(() => preparedByDefault(postgres(databaseUrl(), { ...resilient, max: 10, idle_timeout: 30 })));

export const db: Db = globalForDb.__cockpitDb ?? drizzle(sql, { schema });

/**
 * The breaker's probe opens a connection of its own per probe, so neither a stuck pool nor a
 * server-closed idle connection stands for the server's state. Runs only while the database is
 * suspect or down, and for readiness.
 */
setDatabaseProbe(async () => {
  const probe = postgres(databaseUrl(), { ...resilient, max: 1, connect_timeout: 1, onnotice: () => {} });
  try {
    await probe`SELECT 1`;
  } finally {
    void probe.end({ timeout: 0 }).catch(() => {});
  }
});

/**
 * A small pool with synchronous_commit = off, only for writes whose loss in a crash is harmless and
 * leaves nothing inconsistent: rate-limit counters and credit holds (a later durable commit flushes
 * them). Money moves only via `db`.
 */
export const relaxedSql: postgres.Sql =
  globalForDb.__cockpitRelaxedSql ??
  guard(() =>
    preparedByDefault(
      postgres(databaseUrl(), { ...resilient, max: 4, idle_timeout: 30, connection: { synchronous_commit: "off" } }),
    ),
  );

export const relaxedDb: Db = globalForDb.__cockpitRelaxedDb ?? drizzle(relaxedSql, { schema });

/**
 * One relaxed connection for run claims only (single autocommitted statements). Claims arriving
 * together are pipelined on it; a claim waits only for a conflicting run's end, which never waits
 * for this connection.
 */
export const claimSql: postgres.Sql =
  globalForDb.__cockpitClaimSql ??
  guard(() =>
    preparedByDefault(
      postgres(databaseUrl(), { ...resilient, max: 1, idle_timeout: 30, connection: { synchronous_commit: "off" } }),
    ),
  );
// Claims run as rendered text (db/render-sql.ts), not through a drizzle database, but their
// parameters need the types drizzle sets on a pool it wraps: JSON sent as the text it already is,
// dates and times as strings.
drizzle(claimSql, { schema });

globalForDb.__cockpitSql = sql;
globalForDb.__cockpitDb = db;
globalForDb.__cockpitRelaxedSql = relaxedSql;
globalForDb.__cockpitRelaxedDb = relaxedDb;
globalForDb.__cockpitClaimSql = claimSql;
