import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { corkedSocketOption } from "./corked-socket";
import { preparedByDefault } from "./prepared";
import { guard, setDatabaseProbe } from "./resilience";
import * as schema from "./schema";
import { databaseUrl } from "./url";

export type Db = PostgresJsDatabase<typeof schema>;

/**
 * Pools per process, kept on globalThis so Next's dev reloads and test files that import this
 * module more than once share them instead of leaking connections.
 */
const globalForDb = globalThis as unknown as {
  __cockpitSql?: postgres.Sql;
  __cockpitDb?: Db;
  __cockpitRelaxedSql?: postgres.Sql;
  __cockpitRelaxedDb?: Db;
  __cockpitClaimSql?: postgres.Sql;
  __cockpitClaimDb?: Db;
};

/**
 * Outage behaviour (db/resilience.ts has the rest): a connection attempt gives up after
 * CONNECT_TIMEOUT_S instead of postgres.js's 30 s, and a pool that lost its server retries every
 * 50–500 ms instead of backing off to 20 s, so it reconnects within about half a second of the
 * server's return. Connections are recycled after 5–10 minutes (stale ones after a failover).
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
 * The breaker's probe: a connection of its own, opened for each probe and closed after it, so
 * neither a pool stuck on a dead network nor a probe connection the server terminated while idle
 * can stand for the server's state. A probe runs only while the database is suspect or down
 * (every 250 ms) and for readiness checks.
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
 * A second, small pool whose commits do not wait for the WAL flush (synchronous_commit = off).
 * Only for writes whose loss in a crash is harmless, and which then never leave the database
 * inconsistent: rate-limit counters (a crash forgets the last milliseconds of counts) and credit
 * holds (a lost hold vanishes together with its reserved amount; any later durable commit, such as
 * the settle that ends it, flushes the hold's WAL first). Money moves only through `db`.
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
 * One connection, relaxed like the pool above, for runs' claims only (lib/runs/claim-thread.ts:
 * one autocommitted statement each, never a transaction). Claims arriving together are pipelined
 * on it: postgres.js writes them in one go and the server's backend works through them without
 * sleeping between them. Measured at 32 connections (2 cores): the database's CPU per run 0.83–0.88
 * → 0.55–0.60 ms and the gateway's 1.56–1.69 → 1.29–1.42 ms against claims spread over the pool's
 * four connections. A claim waits only for a conflicting row's transaction (a run ending on the
 * same thread), which never waits for this connection, so one claim cannot hold the others for
 * longer than a commit.
 */
const claimSql: postgres.Sql =
  globalForDb.__cockpitClaimSql ??
  guard(() =>
    preparedByDefault(
      postgres(databaseUrl(), { ...resilient, max: 1, idle_timeout: 30, connection: { synchronous_commit: "off" } }),
    ),
  );

export const claimDb: Db = globalForDb.__cockpitClaimDb ?? drizzle(claimSql, { schema });

globalForDb.__cockpitSql = sql;
globalForDb.__cockpitDb = db;
globalForDb.__cockpitRelaxedSql = relaxedSql;
globalForDb.__cockpitRelaxedDb = relaxedDb;
globalForDb.__cockpitClaimSql = claimSql;
globalForDb.__cockpitClaimDb = claimDb;
