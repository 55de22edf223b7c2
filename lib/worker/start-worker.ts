import "server-only";
import { db } from "@/db/client";
import { dbState, isConnectionError } from "@/db/resilience";
import { reconcileReservations, releaseLeasesOfGoneOwners } from "@/lib/billing";
import { queueDepths } from "@/lib/jobs/queue-depths";
import { startKnowledgeWorker } from "@/lib/knowledge/jobs/worker";
import { log } from "@/lib/log";
import { reportOnScrape } from "@/lib/observability/metrics/record";
import { sandboxPool } from "@/lib/process-channels.mjs";
import { redisStateIfUsed } from "@/lib/rate-limit/redis-circuit";
import { recoverJournals } from "@/lib/persistence/bill-journal";
import { failRunsOfGoneOwners, failStaleRuns } from "@/lib/runs/reconcile-runs";
// Registers the run writer of the bill journal, so adopted entries can be written.
import "@/lib/runs/persist-run";
// Defines the webhook events' queue, so this process serves it (with the knowledge queue).
import "@/lib/webhooks/jobs/event-queue";

/** Leases of processes seen to be gone (one indexed query when there are none): every few seconds. */
const GONE_OWNERS_EVERY_MS = 2_000;
/** Holds past their expiry (owners no process here can judge): the slow fallback. */
const EXPIRED_EVERY_MS = 60_000;

function every(ms: number, name: string, run: () => Promise<number>): { first: Promise<void>; timer: NodeJS.Timeout } {
  let busy = false;
  const tick = async () => {
    // A slow database must not stack up ticks; an unreachable one is not asked (the breaker logs it once).
    if (busy || dbState() === "down") return;
    busy = true;
    try {
      const released = await run();
      if (released > 0) log.warn({ released, reason: name }, "released orphaned credit reservations");
    } catch (err) {
      // The database went away during the tick: the breaker has said so once already.
      if (isConnectionError(err)) log.debug({ reason: name }, "reservation reconciler skipped: database unreachable");
      else log.error({ err, reason: name }, "reservation reconciler failed");
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(tick, ms);
  timer.unref();
  return { first: tick(), timer };
}

/**
 * Background duties: releasing holds and threads orphaned by a crash (safe in several processes at
 * once), the job queues (lib/jobs) and webhook events. Resolves once the first pass freed gone
 * processes' leases, with a stop function.
 */
export async function startWorker(): Promise<() => Promise<void>> {
  const gone = every(GONE_OWNERS_EVERY_MS, "owner gone", async () => {
    // Bills a crashed process journaled during an outage: adopted here, written when the database answers.
    await recoverJournals().catch((err: unknown) => log.error({ err }, "could not adopt a bill journal"));
    // Runs of a dead server release their threads (marked failed); then their credit leases.
    await failRunsOfGoneOwners(db);
    return releaseLeasesOfGoneOwners(db);
  });
  const expired = every(EXPIRED_EVERY_MS, "expired", async () => {
    await failStaleRuns(db);
    return reconcileReservations(db);
  });
  const stopJobs = startKnowledgeWorker();
  // Read on each scrape when this process serves /metrics (its job queues, breakers, sandbox pool).
  reportOnScrape({
    jobQueues: queueDepths,
    database: dbState,
    redis: redisStateIfUsed,
    sandbox: () => sandboxPool.get()?.stats(),
  });
  await Promise.all([gone.first, expired.first]);
  return () => {
    clearInterval(gone.timer);
    clearInterval(expired.timer);
    return stopJobs();
  };
}
