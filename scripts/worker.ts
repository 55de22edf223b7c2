/** `npm run worker`: the background worker alone, for deployments that split web and worker. */
import { ensureDatabase } from "@/db/ensure";
import { log } from "@/lib/log";
import { startWorker } from "@/lib/worker/start-worker";

await ensureDatabase();
const stop = await startWorker();
log.info("worker started");
const keepAlive = setInterval(() => {}, 1 << 30);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stop();
    clearInterval(keepAlive);
    process.exit(0);
  });
}
