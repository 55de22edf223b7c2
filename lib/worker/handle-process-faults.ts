import "server-only";
import { isClosedSocketWrite } from "@/db/driver-faults";
import { isConnectionError, renewPools } from "@/db/resilience";
import { log } from "@/lib/log";

/**
 * What `npm run worker` does with errors nothing awaited, so a database outage does not end it (the
 * server has Next.js's handlers for the same). pg-boss completes and fails jobs without awaiting the
 * call: a rejection there is logged, the job stays active, expires (JOBS_MAINTENANCE_S) and is
 * retried, its handler resuming from the rows it wrote. postgres.js writing to a closed socket
 * (db/driver-faults.ts) is logged and the pools renewed. Any other uncaught exception still ends
 * the process (exit 1), as Node would.
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
