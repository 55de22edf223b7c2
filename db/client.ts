import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";
import { databaseUrl } from "./url";

export type Db = PostgresJsDatabase<typeof schema>;

/**
 * One pool per process. Kept on globalThis so Next's dev reloads and test files that import this
 * module more than once share it instead of leaking connections.
 */
const globalForDb = globalThis as unknown as { __cockpitSql?: postgres.Sql; __cockpitDb?: Db };

export const sql: postgres.Sql =
  globalForDb.__cockpitSql ??
  postgres(databaseUrl(), {
    max: 10,
    idle_timeout: 30,
    onnotice: () => {},
  });

export const db: Db = globalForDb.__cockpitDb ?? drizzle(sql, { schema });

globalForDb.__cockpitSql = sql;
globalForDb.__cockpitDb = db;
