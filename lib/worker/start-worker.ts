import "server-only";
import { db } from "@/db/client";
import { reconcileReservations } from "@/lib/billing";
import { log } from "@/lib/log";

const RECONCILE_EVERY_MS = 60_000;

/**
 * Background duties of a process: for now, releasing reservations orphaned by a crash. Later
 * issues add the job queue (indexing, webhooks) here. Returns a stop function.
 */
export function startWorker(): () => void {
  const tick = async () => {
    try {
      const released = await reconcileReservations(db);
      if (released > 0) log.warn({ released }, "released orphaned credit reservations");
    } catch (err) {
      log.error({ err }, "reservation reconciler failed");
    }
  };
  void tick();
  const timer = setInterval(tick, RECONCILE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
