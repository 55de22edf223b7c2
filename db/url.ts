import { env } from "@/lib/env";

/**
 * The connection URL: DATABASE_URL when set, else the embedded server's fixed local address
 * (started on demand by ensureDatabase()). Known synchronously, so the client can be built at import.
 */
export function databaseUrl(): string {
  return env.DATABASE_URL ?? `postgres://postgres@127.0.0.1:${env.EMBEDDED_PG_PORT}/cockpit`;
}

export const usesEmbeddedDatabase = () => env.DATABASE_URL === undefined;
