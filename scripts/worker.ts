/**
 * `npm run worker`: the background worker alone, for split web/worker deployments. It registers as
 * an embedded-database user, so the database stays up for it and stops when it stops last.
 */
import { attachDatabase } from "@/db/ensure";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { serveProcessMetrics } from "@/lib/observability/metrics/serve.mjs";
import { startTracing } from "@/lib/observability/tracing/start.mjs";
import { runShutdownHooks } from "@/lib/shutdown";
import { handleProcessFaults } from "@/lib/worker/handle-process-faults";
import { startWorker } from "@/lib/worker/start-worker";

/** How long the shutdown hooks (lib/shutdown.ts: the bill journal, the credit leases) may take, as on the server. */
const SHUTDOWN_HOOKS_MS = 3_000;

handleProcessFaults("worker");

await startTracing();
const releaseDatabase = await attachDatabase();
// Before the worker starts, so its job queues and breakers report to this listener.
const metricsAt = await serveProcessMetrics({
  port: env.METRICS_PORT,
  hostname: env.HOST,
  warn: (message) => log.warn(message),
});
if (metricsAt) log.info({ metrics: metricsAt }, "metrics listening");
const stop = await startWorker();
log.info("worker started");
const keepAlive = setInterval(() => {}, 1 << 30);
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    clearInterval(keepAlive);
    stop()
      .catch((err: unknown) => log.warn({ err }, "job workers did not stop cleanly"))
      // Credit leased for this process's runs goes back now, not when it expires; then the database may stop.
      .then(() =>
        Promise.race([
          runShutdownHooks((err) => log.warn({ err }, "shutdown hook failed")),
          new Promise((r) => setTimeout(r, SHUTDOWN_HOOKS_MS).unref()),
        ]),
      )
      .then(releaseDatabase)
      .then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, "could not stop the embedded database; `npm run db:stop` stops it");
          process.exit(1);
        },
      );
  });
}
