import "server-only";
import PgBoss from "pg-boss";
import { databaseUrl } from "@/db/url";
import { env } from "@/lib/env";
import { log } from "@/lib/log";

/** pg-boss's tables live in their own schema of the same database. */
export const JOBS_SCHEMA = "pgboss";

const g = globalThis as { __cockpitBoss?: Promise<PgBoss> };

/**
 * The process's pg-boss, started on first use, so a server that never indexes opens no pool. Its
 * own `pg` pool sits outside the db breaker; its errors are logged, never thrown. A failed start is
 * forgotten and retried.
 */
export function getBoss(): Promise<PgBoss> {
  g.__cockpitBoss ??= startBoss().catch((err: unknown) => {
    g.__cockpitBoss = undefined;
    throw err;
  });
  return g.__cockpitBoss;
}

export const bossStarted = () => g.__cockpitBoss !== undefined;

let lastErrorLog = 0;

async function startBoss(): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: databaseUrl(),
    schema: JOBS_SCHEMA,
    application_name: "cockpit-jobs",
    max: 4,
    // Cron scheduling is unused: no clock-skew monitor or cron polling.
    schedule: false,
    // Maintenance fails jobs past their expiry (a killed or hung worker): how fast a stuck job is retried.
    maintenanceIntervalSeconds: env.JOBS_MAINTENANCE_S,
  });
  boss.on("error", (err) => {
    // A database outage makes every poll fail: one line per 10 s, not one per poll.
    const now = Date.now();
    if (now - lastErrorLog < 10_000) return;
    lastErrorLog = now;
    log.warn({ err }, "job queue: database call failed (retrying)");
  });
  await boss.start();
  // Only speed rides on it: the queue works without (slower behind a long backlog).
  await ensureFetchOrderIndex(boss).catch((err: unknown) =>
    log.warn({ err }, "job queue: could not create the fetch order index"),
  );
  return boss;
}

/**
 * pg-boss's fetch sorts the queue's whole backlog (its index is on (name, start_after)), so
 * draining a backlog is quadratic. This index returns rows in fetch order. Made once on the
 * partitioned parent, under an advisory lock so servers starting together do not race.
 */
async function ensureFetchOrderIndex(boss: PgBoss): Promise<void> {
  await boss.getDb().executeSql(
    `
    DO $$
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtext('cockpit:${JOBS_SCHEMA}.job_fetch_order'));
      CREATE INDEX IF NOT EXISTS job_fetch_order ON ${JOBS_SCHEMA}.job (name, priority DESC, created_on, id) WHERE state < 'active';
    END
    $$`,
    [],
  );
}

export async function stopBoss(): Promise<void> {
  const started = g.__cockpitBoss;
  if (!started) return;
  g.__cockpitBoss = undefined;
  const boss = await started.catch(() => null);
  await boss
    ?.stop({ graceful: false, wait: false })
    .catch((err: unknown) => log.warn({ err }, "job queue: stop failed"));
}
