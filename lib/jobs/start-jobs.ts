import "server-only";
import { sql } from "@/db/sql";
import type PgBoss from "pg-boss";
import { randomUUID } from "node:crypto";
import { db, sql as pg } from "@/db/client";
import { dbState, isConnectionError, isTransientConflict } from "@/db/resilience";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { bossStarted, getBoss, JOBS_SCHEMA, stopBoss } from "./boss";
import {
  delegatesToJobsThread,
  ensureJobsThread,
  jobsThreadRunning,
  stopJobsThread,
  wakeJobsThread,
} from "./jobs-thread";
import { definedQueues, type JobRun, type QueueDefinition } from "./queues";

const g = globalThis as { __cockpitQueuesReady?: WeakMap<PgBoss, Promise<void>>; __cockpitWorkers?: Promise<void> };
const ready = (g.__cockpitQueuesReady ??= new WeakMap());

/**
 * pg-boss's create_queue attaches a partition to one shared table: processes creating queues at once
 * (a fresh database, several servers and a worker) can deadlock, and the loser, rolled back, tries again.
 */
async function createQueue(boss: PgBoss, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await boss.createQueue(name);
    } catch (err) {
      if (!isTransientConflict(err) || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, attempt * 20 + Math.random() * 50));
    }
  }
}

/** Creates the defined queues (and their dead letter queues first) once per started pg-boss; idempotent in SQL too. */
export function ensureQueues(boss: PgBoss): Promise<void> {
  let done = ready.get(boss);
  if (!done) {
    done = (async () => {
      for (const q of definedQueues()) {
        if (q.deadLetter) await createQueue(boss, q.deadLetter.name);
        await createQueue(boss, q.name);
      }
    })();
    done.catch(() => ready.delete(boss));
    ready.set(boss, done);
  }
  return done;
}

/**
 * pg-boss 10 has no heartbeat: it expires a job `expire_in` after its start, so a long job would
 * run twice. This moves the start forward every third of the expiry until `maxRunSeconds`, then
 * aborts the handler's signal.
 */
function heartbeat(
  name: string,
  id: string,
  expireSeconds: number,
  maxRunSeconds: number,
): { signal: AbortSignal; stop: () => void } {
  const controller = new AbortController();
  const beat = setInterval(
    () => {
      db.execute(
        sql`UPDATE ${sql.identifier(JOBS_SCHEMA)}.job SET started_on = now() WHERE name = ${name} AND id = ${id}::uuid AND state = 'active'`,
      ).catch((err: unknown) => log.debug({ err, job: id }, "job heartbeat failed"));
    },
    Math.max(1, Math.floor(expireSeconds / 3)) * 1000,
  );
  beat.unref();
  const cap = setTimeout(() => {
    clearInterval(beat);
    controller.abort(new Error(`the job ran longer than ${maxRunSeconds} s`));
  }, maxRunSeconds * 1000);
  cap.unref();
  return {
    signal: controller.signal,
    stop: () => {
      clearInterval(beat);
      clearTimeout(cap);
    },
  };
}

/** This process's worker ids by queue (on globalThis: Next.js may load this module once per bundle). */
const gw = globalThis as {
  __cockpitWorkerIds?: Map<string, string[]>;
  __cockpitJobsWake?: { token: string; pending: Set<string> };
};
const workerIds = (gw.__cockpitWorkerIds ??= new Map());
let nextNotified = 0;

/** Producers' wake-ups to other processes' workers (LISTEN/NOTIFY); payload `<queue>:<sender token>`. */
const WAKE_CHANNEL = "cockpit_jobs";
const wake = (gw.__cockpitJobsWake ??= { token: randomUUID(), pending: new Set() });

/** Wakes one idle worker of the queue in this thread; on the main thread, a `thread` queue's wake goes to the jobs thread. */
export function notifyLocalWorker(name: string): void {
  if (queueNames(threadQueues()).includes(name)) {
    ensureJobsThread();
    wakeJobsThread(name);
    return;
  }
  const ids = workerIds.get(name);
  if (!ids?.length || !bossStarted()) return;
  const id = ids[nextNotified++ % ids.length]!;
  void getBoss()
    .then((boss) => boss.notifyWorker(id))
    .catch(() => {});
}

/**
 * pg-boss 10 waits its polling interval even after finding a job. Called after a job or a
 * producer's commit: wakes one local idle worker and tells other processes over NOTIFY (once per
 * queue per tick), so a job starts at once.
 */
export function notifyJobWorkers(name: string): void {
  notifyLocalWorker(name);
  if (wake.pending.has(name)) return;
  wake.pending.add(name);
  setImmediate(() => {
    wake.pending.delete(name);
    pg`select pg_notify(${WAKE_CHANNEL}, ${`${name}:${wake.token}`})`.catch((err: unknown) =>
      log.debug({ err, queue: name }, "job wake-up not sent"),
    );
  });
}

/** Another process committed jobs: start this process's workers if they sleep, and wake one of the queue's. */
function onWakeNotice(payload: string): void {
  const i = payload.lastIndexOf(":");
  if (payload.slice(i + 1) === wake.token) return;
  const name = payload.slice(0, i);
  if (!queueNames([...servedQueues(), ...threadQueues()]).includes(name)) return;
  wakeJobWorkers();
  notifyLocalWorker(name);
}

/** The queues this thread serves: concurrency 0 leaves a queue to other processes, and the main thread leaves `thread` ones. */
const servedQueues = () => {
  const delegating = delegatesToJobsThread();
  return definedQueues().filter((q) => q.concurrency() > 0 && !(delegating && q.thread));
};
/** The queues this process serves on its jobs thread (none but on the production server's main thread). */
const threadQueues = () =>
  delegatesToJobsThread() ? definedQueues().filter((q) => q.concurrency() > 0 && q.thread) : [];
const queueNames = (queues: QueueDefinition<object>[]) =>
  queues.flatMap((q) => (q.deadLetter ? [q.name, q.deadLetter.name] : [q.name]));

async function serve<T extends object>(
  boss: PgBoss,
  queue: QueueDefinition<T>,
  name: string,
  handle: (job: JobRun<T>) => Promise<void>,
) {
  let self = "";
  self = await boss.work<T>(
    name,
    { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: env.JOBS_POLL_S },
    async ([job]) => {
      if (!job) return;
      const beats = heartbeat(name, job.id, queue.sendOptions().expireInSeconds ?? 120, queue.maxRunSeconds());
      try {
        await handle({
          id: job.id,
          data: job.data,
          retryCount: job.retryCount,
          retryLimit: job.retryLimit,
          signal: beats.signal,
        });
      } finally {
        beats.stop();
        // More may be waiting: fetch again without the polling pause.
        boss.notifyWorker(self);
      }
    },
  );
  workerIds.set(name, [...(workerIds.get(name) ?? []), self]);
  return self;
}

async function startServing(queues: QueueDefinition<object>[]): Promise<void> {
  const boss = await getBoss();
  await ensureQueues(boss);
  for (const q of queues) {
    for (let i = 0; i < q.concurrency(); i++) await serve(boss, q, q.name, q.handle);
    if (q.deadLetter) await serve(boss, q, q.deadLetter.name, q.deadLetter.handle);
  }
  log.info({ queues: queues.map((q) => q.name) }, "job workers started");
}

/** Starts this process's job workers (once; a failed start is tried again on the next wake), and its jobs thread. */
export function wakeJobWorkers(): void {
  if (threadQueues().length > 0) ensureJobsThread();
  if (g.__cockpitWorkers) return;
  const queues = servedQueues();
  if (queues.length === 0) return;
  g.__cockpitWorkers = startServing(queues).catch((err: unknown) => {
    g.__cockpitWorkers = undefined;
    log.warn({ err }, "job workers could not start (retrying on the next check)");
  });
}

/** The queues among `names` holding an unfinished job: one indexed probe per name, in one statement. */
async function queuesWithWork(names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const [table] = await db.execute<{ ok: boolean }>(sql`SELECT to_regclass(${`${JOBS_SCHEMA}.job`}) IS NOT NULL AS ok`);
  if (!table?.ok) return new Set();
  const list = sql.join(
    names.map((n) => sql`(${n})`),
    sql`, `,
  );
  const rows = await db.execute<{ name: string }>(
    sql`SELECT q.name FROM (VALUES ${list}) AS q(name) WHERE EXISTS (SELECT 1 FROM ${sql.identifier(JOBS_SCHEMA)}.job j WHERE j.name = q.name AND j.state < 'completed')`,
  );
  return new Set(rows.map((r) => r.name));
}

/**
 * The job side of a background worker: pg-boss sleeps until a cheap query every JOBS_IDLE_CHECK_S
 * finds an unfinished job, then the workers start and stay. SKIP LOCKED lets several processes
 * share queues. Returns a stop.
 */
export function startJobs(): () => Promise<void> {
  let busy = false;
  // Other processes' wake-ups (see notifyJobWorkers); until this listens, polling alone finds jobs.
  let listening: Promise<{ unlisten: () => Promise<void> } | undefined> | undefined;
  const listen = () => {
    if (listening || (servedQueues().length === 0 && threadQueues().length === 0) || dbState() === "down") return;
    listening = pg.listen(WAKE_CHANNEL, onWakeNotice).catch((err: unknown) => {
      listening = undefined;
      log.debug({ err }, "job wake-ups not heard yet (retrying on the next check)");
      return undefined;
    });
  };
  const tick = async () => {
    listen();
    if (busy || dbState() === "down") return;
    const names = queueNames(g.__cockpitWorkers ? [] : servedQueues());
    const forThread = queueNames(jobsThreadRunning() ? [] : threadQueues());
    if (names.length === 0 && forThread.length === 0) return;
    busy = true;
    try {
      const waiting = await queuesWithWork([...names, ...forThread]);
      if (names.some((n) => waiting.has(n))) wakeJobWorkers();
      if (forThread.some((n) => waiting.has(n))) ensureJobsThread();
    } catch (err) {
      if (isConnectionError(err)) log.debug("job check skipped: database unreachable");
      else log.warn({ err }, "job check failed");
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), env.JOBS_IDLE_CHECK_S * 1000);
  timer.unref();
  void tick();
  return async () => {
    clearInterval(timer);
    await (await listening)?.unlisten().catch(() => {});
    g.__cockpitWorkers = undefined;
    workerIds.clear();
    await stopJobsThread();
    if (bossStarted()) await stopBoss();
  };
}
