import "server-only";
import { isClosedSocketWrite } from "@/db/driver-faults";
import { isConnectionError, renewPools } from "@/db/resilience";
import { log } from "@/lib/log";

/**
 * Unawaited errors in `npm run worker` and the server's jobs thread, so a database outage does not
 * end them: pg-boss's unawaited completions are logged and the job expires and retries; postgres.js
 * writes to a closed socket renew the pools. Any other uncaught exception still exits 1 (in the jobs
 * thread: the thread ends and the server starts it again).
 */
export function handleProcessFaults(who: "worker" | "jobs thread"): void {
  process.on("unhandledRejection", (err) => {
    if (isConnectionError(err))
      log.warn(
        { err },
        `${who}: a job queue call failed, the database is unreachable (the job is retried when it expires)`,
      );
    else log.error({ err }, `${who}: unhandled rejection`);
  });
  process.on("uncaughtException", (err) => {
    if (renewPoolsAfterClosedSocketWrite(err, who)) return;
    log.fatal({ err }, `${who}: uncaught exception`);
    process.exit(1);
  });
}

/**
 * The server's main thread: Next.js's own handler logs uncaught exceptions and serves on, which
 * would leave a pool whose connection the driver broke; this renews it.
 */
export function handleDriverFaults(): void {
  process.on("uncaughtException", (err) => void renewPoolsAfterClosedSocketWrite(err, "server"));
}

function renewPoolsAfterClosedSocketWrite(err: unknown, who: string): boolean {
  if (!isClosedSocketWrite(err)) return false;
  log.warn({ err }, `${who}: the database driver wrote to a closed connection; its pools are renewed`);
  renewPools();
  return true;
}
