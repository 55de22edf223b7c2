import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { preparedByDefault } from "./prepared";
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
};

export const sql: postgres.Sql =
  globalForDb.__cockpitSql ??
  preparedByDefault(
    postgres(databaseUrl(), {
      max: 10,
      idle_timeout: 30,
      onnotice: () => {},
    }),
  );

export const db: Db = globalForDb.__cockpitDb ?? drizzle(sql, { schema });

/**
 * A second, small pool whose commits do not wait for the WAL flush (synchronous_commit = off).
 * Only for writes whose loss in a crash is harmless, and which then never leave the database
 * inconsistent: rate-limit counters (a crash forgets the last milliseconds of counts) and credit
 * holds (a lost hold vanishes together with its reserved amount; any later durable commit, such as
 * the settle that ends it, flushes the hold's WAL first). Money moves only through `db`.
 */
export const relaxedSql: postgres.Sql =
  globalForDb.__cockpitRelaxedSql ??
  preparedByDefault(
    postgres(databaseUrl(), {
      max: 4,
      idle_timeout: 30,
      onnotice: () => {},
      connection: { synchronous_commit: "off" },
    }),
  );

export const relaxedDb: Db = globalForDb.__cockpitRelaxedDb ?? drizzle(relaxedSql, { schema });

globalForDb.__cockpitSql = sql;
globalForDb.__cockpitDb = db;
globalForDb.__cockpitRelaxedSql = relaxedSql;
globalForDb.__cockpitRelaxedDb = relaxedDb;
