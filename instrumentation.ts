/**
 * Runs once per server process before serving: database up and migrated, then the background
 * worker, whose first pass frees the credit leases of the process this one replaced, so a restart
 * never refuses calls for a dead process's holds. The rate limits' Redis connects meanwhile, so a
 * first burst is counted where the other processes count it, not in PostgreSQL while it connects.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { ensureDatabase } = await import("./db/ensure");
  await ensureDatabase();
  // A build's page-data workers are not servers: they hold no leases and should run no timers.
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  const [{ startWorker }, { onShutdown }, { handleDriverFaults }, { redisCircuit }] = await Promise.all([
    import("./lib/worker/start-worker"),
    import("./lib/shutdown"),
    import("./lib/worker/handle-process-faults"),
    import("./lib/rate-limit/redis-circuit"),
  ]);
  handleDriverFaults();
  const [stopWorker] = await Promise.all([startWorker(), redisCircuit()?.useRedis()]);
  onShutdown(stopWorker);
}
