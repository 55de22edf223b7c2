import { dbEnv } from "./env";

/** DATABASE_URL, else the embedded server's fixed address; known synchronously so the client can be built at import. */
export function databaseUrl(): string {
  return dbEnv.DATABASE_URL ?? `postgres://postgres@127.0.0.1:${dbEnv.EMBEDDED_PG_PORT}/cockpit`;
}

export const usesEmbeddedDatabase = () => dbEnv.DATABASE_URL === undefined;
