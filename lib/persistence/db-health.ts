import "server-only";
import { checkDatabase, DatabaseUnavailableError, dbState, isConnectionError, onDbStateChange } from "@/db/resilience";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { dbHealthLogger } from "@/lib/process-channels.mjs";

/** Seconds a client is told to wait while the database is away (the breaker probes every 250 ms). */
const DB_RETRY_AFTER_S = 1;

if (!dbHealthLogger.get()) {
  dbHealthLogger.set(true);
  // One structured line per change of state, never one per request.
  onDbStateChange((state, reason) => {
    if (state === "down") log.error({ db: state, reason }, "database unreachable: answering 503 until it returns");
    else log.warn({ db: state, reason }, "database reachable again");
  });
}

/** The 503 a call gets while the database is unreachable, or null when `err` is something else. */
export function databaseUnavailable(err: unknown): AppError | null {
  if (!(err instanceof DatabaseUnavailableError) && !isConnectionError(err)) return null;
  return new AppError("unavailable", "The service is temporarily unavailable (database unreachable); retry shortly", {
    wireCode: "database_unavailable",
    headers: { "retry-after": String(DB_RETRY_AFTER_S) },
  });
}

/** For the readiness check: probes now when the breaker is closed; reports the breaker's verdict. */
export async function databaseReady(): Promise<boolean> {
  return dbState() === "up" ? checkDatabase() : false;
}
