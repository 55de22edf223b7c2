import "server-only";
import { isClosedSocketWrite } from "@/db/driver-faults";
import { isConnectionError, renewPools } from "@/db/resilience";
import { log } from "@/lib/log";

/**
 * Unawaited errors in `npm run worker`, so a database outage does not end it: pg-boss's unawaited
 * completions are logged and the job expires and retries; postgres.js writes to a closed socket
 * renew the pools. Any other uncaught exception still exits 1.
 */
export function handleProcessFaults(): void {
  process.on("unhandledRejection", (err) => {
    if (isConnectionError(err))
      log.warn(
        { err },
        "worker: a job queue call failed, the database is unreachable (the job is retried when it expires)",
      );
    else log.error({ err }, "worker: unhandled rejection");
  });
  process.on("uncaughtException", (err) => {
    if (isClosedSocketWrite(err)) {
      log.warn({ err }, "worker: the database driver wrote to a closed connection; its pools are renewed");
      renewPools();
      return;
    }
    log.fatal({ err }, "worker: uncaught exception");
    process.exit(1);
  });
}
