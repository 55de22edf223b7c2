import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { claimDb, db } from "@/db/client";
import { RUN_STATUS, type ThreadSource } from "@/db/enums";
import { currentLeaseOwner, formatLeaseOwner } from "@/lib/billing/lease-owner";
import { AppError } from "@/lib/errors";
import { dbState, isConnectionError } from "@/db/resilience";
import { log } from "@/lib/log";
import { threadNotFound } from "@/lib/threads/internal";
import type { RunContext } from "./context";
import { endActiveRuns } from "./end-active-runs";
import type { HistoryRow } from "./stages/history";

interface ClaimRow extends Partial<HistoryRow> {
  source: ThreadSource | null;
  claimed: number;
  /** See claimOne. */
  stale: boolean | null;
}

async function activeRunOf(threadId: string): Promise<string | null> {
  const [row] = (await db.execute(sql`SELECT run_id FROM active_runs WHERE thread_id = ${threadId}`)) as unknown as {
    run_id: string;
  }[];
  return row?.run_id ?? null;
}

/**
 * One run's claim, as the batch statement takes it (jsonb_to_recordset column names).
 * @internal
 */
export interface ClaimItem {
  thread_id: string;
  run_id: string;
  company_id: string;
  model: string;
  stream: boolean;
  owner: string;
  after_seq: number;
  page: number;
}

interface Waiting {
  item: ClaimItem;
  resolve: (rows: ClaimRow[]) => void;
  reject: (err: unknown) => void;
}

/** Claims in one statement at most (a batch's rows are at most this times a page). */
const MAX_BATCH = 32;

/** A thread's newest `page` messages above `afterSeq`, newest first, read when `when` holds. */
const newestPage = (threadId: SQL | string, afterSeq: SQL | number, page: SQL | number, when: SQL = sql`true`) => sql`
      SELECT seq, role, content, extra, tokens FROM messages
      WHERE thread_id = ${threadId} AND seq > ${afterSeq} AND ${when}
      ORDER BY seq DESC LIMIT ${page}`;

/** Whether the statement's snapshot shows a run other than `runId` active on the thread (`stale`, see claimOne). */
const otherRunActive = (threadId: SQL | string, runId: SQL | string) =>
  sql`EXISTS (SELECT 1 FROM active_runs a WHERE a.thread_id = ${threadId} AND a.run_id <> ${runId})`;

/**
 * One claim: a row of active_runs for the run unless its thread has one (the primary key refuses
 * a second), and the thread's newest page above `after_seq`, read in the same statement. `stale`:
 * the statement's snapshot still shows another run active on the thread, so the insert got in
 * only because that run's release committed after the snapshot was taken (it waited for it, or
 * found it done): the page, read in that snapshot, may lack that run's answer (claimThread reads
 * it again). A claim that goes out alone (every claim at low load) takes this lean statement:
 * claimMany's joins and sorts over its JSON input cost more than they save for one.
 */
function claimOne(c: ClaimItem): Promise<ClaimRow[]> {
  return claimDb.execute(sql`
    WITH t AS (SELECT id, source FROM threads WHERE id = ${c.thread_id} AND company_id = ${c.company_id}),
    r AS (
      INSERT INTO active_runs (thread_id, run_id, company_id, model, stream, owner)
      SELECT t.id, ${c.run_id}, ${c.company_id}, ${c.model}, ${c.stream}, ${c.owner}
      FROM t
      ON CONFLICT (thread_id) DO NOTHING
      RETURNING run_id)
    SELECT c.source, c.claimed, c.stale, h.seq, h.role, h.content, h.extra, h.tokens
    FROM (SELECT (SELECT source FROM t) AS source, (SELECT count(*) FROM r)::int AS claimed,
            ${otherRunActive(c.thread_id, c.run_id)} AS stale) c
    LEFT JOIN LATERAL (${newestPage(c.thread_id, c.after_seq, c.page, sql`c.claimed = 1`)}) h ON true`) as unknown as Promise<
    ClaimRow[]
  >;
}

/**
 * Several claims in one statement, the same work as claimOne for each: rows tagged with the claim's
 * index `n` in `items`, newest first within a claim. Inserted in thread order (two batches never wait on each
 * other in a cycle); the first of two claims on one thread in a batch wins, the second conflicts.
 *
 * Each claim finds its thread by primary key (the LATERAL … LIMIT 1 keeps the planner from turning
 * it into a join): PostgreSQL guesses 100 rows for jsonb_to_recordset and, as a plain join, hashed
 * the input against a sequential scan of the whole threads table, every batch. Measured on 18,000
 * threads, a warm batch of 24 claims: 4.9–5.6 ms → 1.1–1.2 ms, and the scan grew with the table.
 * @internal
 */
export function claimManySql(items: ClaimItem[]): SQL {
  const indexed = items.map((item, n) => ({ ...item, n }));
  return sql`
    WITH i AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(indexed)}::jsonb)
        AS x(n int, thread_id text, run_id text, company_id text, model text, stream boolean, owner text, after_seq int, page int)),
    t AS (
      SELECT i.n, th.source, ${otherRunActive(sql`i.thread_id`, sql`i.run_id`)} AS stale
      FROM i CROSS JOIN LATERAL (SELECT source FROM threads WHERE id = i.thread_id AND company_id = i.company_id LIMIT 1) th),
    r AS (
      INSERT INTO active_runs (thread_id, run_id, company_id, model, stream, owner)
      SELECT i.thread_id, i.run_id, i.company_id, i.model, i.stream, i.owner
      FROM i JOIN t ON t.n = i.n
      ORDER BY i.thread_id, i.n
      ON CONFLICT (thread_id) DO NOTHING
      RETURNING run_id)
    SELECT i.n, t.source, (r.run_id IS NOT NULL)::int AS claimed, t.stale, h.seq, h.role, h.content, h.extra, h.tokens
    FROM i
    LEFT JOIN t ON t.n = i.n
    LEFT JOIN r ON r.run_id = i.run_id
    LEFT JOIN LATERAL (${newestPage(sql`i.thread_id`, sql`i.after_seq`, sql`i.page`, sql`r.run_id IS NOT NULL`)}) h ON true
    ORDER BY i.n, h.seq DESC`;
}

async function claimMany(items: ClaimItem[]): Promise<(ClaimRow & { n: number })[]> {
  return (await claimDb.execute(claimManySql(items))) as unknown as (ClaimRow & { n: number })[];
}

/** The page a stale claim read again, in a statement (a snapshot) of its own, after the claim. */
function pageAgain(item: ClaimItem): Promise<HistoryRow[]> {
  return db.execute(newestPage(item.thread_id, item.after_seq, item.page)) as unknown as Promise<HistoryRow[]>;
}

/** A release is retried this often while the database is away (then the reconciler's stale-run sweep). */
const RELEASE_TRIES = 60;
const RELEASE_EVERY_MS = 1_000;
/** A second release this long after the first: a claim held up in the network may commit late. */
const LATE_RELEASE_MS = 30_000;

/** A run whose claim's acknowledgement was lost: what its `runs` row says once it is released. */
const CLAIM_LOST = {
  code: "database_unavailable",
  message: "The database connection failed while the run claimed its thread",
};

function endClaim(c: ClaimItem, attempt = 1): void {
  endActiveRuns(db, sql`thread_id = ${c.thread_id} AND run_id = ${c.run_id}`, RUN_STATUS.failed, CLAIM_LOST).then(
    () => {},
    (err: unknown) => {
      if (attempt >= RELEASE_TRIES) {
        log.error({ err, runId: c.run_id }, "could not release the thread claim of a run that failed");
        return;
      }
      setTimeout(() => endClaim(c, attempt + 1), RELEASE_EVERY_MS).unref();
    },
  );
}

/**
 * A claim whose connection failed may have committed (its acknowledgement lost): its run fails, so
 * its active_runs row, if any, is ended as the reconciler ends runs (lib/runs/end-active-runs.ts:
 * the row deleted, the run stored `failed`), retried every second while the database is away, and
 * once more later for a claim that reaches the server late. Without this a live server's lost
 * acknowledgement kept the thread locked until the stale-run sweep (30 minutes): the reconciler
 * frees only rows of servers that are gone.
 */
function releaseUncertainClaim(c: ClaimItem): void {
  endClaim(c);
  setTimeout(() => endClaim(c), LATE_RELEASE_MS).unref();
}

const waiting: Waiting[] = [];
let inFlight = false;

/**
 * Runs a claim statement. One that fails on its connection after it went out may have committed
 * (its acknowledgement lost): its runs fail, so their claims are released. One the breaker refused
 * (the database known to be down) never left: nothing to release.
 */
async function attempt<T>(items: ClaimItem[], statement: () => Promise<T>): Promise<T> {
  const sent = dbState() === "up";
  try {
    return await statement();
  } catch (err) {
    if (sent && isConnectionError(err)) for (const c of items) releaseUncertainClaim(c);
    throw err;
  }
}

async function send(batch: Waiting[]): Promise<void> {
  if (batch.length === 1) {
    const [w] = batch;
    await attempt([w!.item], () => claimOne(w!.item)).then(w!.resolve, w!.reject);
    return;
  }
  const items = batch.map((w) => w.item);
  let rows: (ClaimRow & { n: number })[];
  try {
    rows = await attempt(items, () => claimMany(items));
  } catch (err) {
    // The connection failed: the batch may have committed, so claiming again would find each
    // run's own row and refuse it. Every claim fails (attempt released them).
    if (isConnectionError(err)) {
      for (const w of batch) w.reject(err);
      return;
    }
    // A lost deadlock against another server's batch (nothing was written): each claim on its
    // own, so one failing claim cannot fail its neighbours.
    log.warn({ err, size: batch.length }, "batched thread claim failed; claiming one by one");
    for (const w of batch) await attempt([w.item], () => claimOne(w.item)).then(w.resolve, w.reject);
    return;
  }
  const byClaim: ClaimRow[][] = batch.map(() => []);
  for (const row of rows) byClaim[row.n]!.push(row);
  batch.forEach((w, n) => w.resolve(byClaim[n]!));
}

/**
 * Claims go out one statement at a time on the claim connection: those that arrive while one is
 * in flight wait and go out together as one statement (batched, like lib/persistence/group-commit.ts
 * for commits). Alone, a claim goes out at once as it always did.
 */
function pump(): void {
  if (inFlight || waiting.length === 0) return;
  inFlight = true;
  const batch = waiting.splice(0, MAX_BATCH);
  void send(batch)
    // Never leave a claim waiting: anything send did not settle fails (settled ones stay as they are).
    .catch((err: unknown) => batch.forEach((w) => w.reject(err)))
    .finally(() => {
      inFlight = false;
      pump();
    });
}

function claim(item: ClaimItem): Promise<ClaimRow[]> {
  return new Promise((resolve, reject) => {
    waiting.push({ item, resolve, reject });
    pump();
  });
}

/**
 * Makes the run its thread's active run and reads the thread's newest `pageSize` messages above
 * seq `afterSeq` (-1: from the first; lib/runs/history-cache.ts has the rest), in ONE
 * statement: a row of active_runs (owned by this process) is inserted unless the thread already
 * has one, which its primary key refuses (409, never two runs interleaving on one thread). The
 * page is read in the same statement, so a run costs no extra round trip for a thread that fits
 * in it (except a claim that got in behind a release committed after its snapshot: `stale`).
 * The run's `runs` row is written when it ends (lib/runs/persist-run.ts).
 *
 * Claims that arrive while one is in flight share the next statement (pump above): measured at 32
 * connections on 2 cores, a trivial extra statement per run cost ~5 % of runs' throughput, and
 * the claim was the one statement a run has beyond a chat completion's.
 *
 * The claim commits on its own relaxed connection (db/client.ts claimDb: synchronous_commit off:
 * no WAL flush of its own, about a third of a run's database time when it had one). Losing it is
 * harmless: only a crash of PostgreSQL itself can, before any later durable commit flushed it; the
 * run is then stored whole when it ends, as any run is.
 * @throws not_found for another company's thread or an unknown one; conflict when a run is active.
 */
export async function claimThread(ctx: RunContext, pageSize: number, afterSeq = -1): Promise<HistoryRow[]> {
  const item: ClaimItem = {
    thread_id: ctx.threadId,
    run_id: ctx.runId,
    company_id: ctx.companyId,
    model: ctx.requestedModel,
    stream: ctx.stream,
    owner: formatLeaseOwner(currentLeaseOwner()),
    after_seq: afterSeq,
    page: pageSize,
  };
  const rows = await claim(item);
  // One row per message read (or one with null message columns): source and claimed repeat on each.
  const head = rows[0];
  if (!head?.source) throw threadNotFound(ctx.threadId);
  if (head.claimed !== 1) {
    const active = await activeRunOf(ctx.threadId);
    throw new AppError(
      "conflict",
      `Thread ${ctx.threadId} already has an active run${active ? ` (${active})` : ""}; wait for it to finish or cancel it. Messages may still be added meanwhile.`,
      { wireCode: "thread_run_active", ...(active ? { extra: { active_run_id: active } } : {}) },
    );
  }
  ctx.claimed = true;
  ctx.source = head.source;
  // The run this one followed released the thread after the claim's snapshot: read what it stored.
  if (head.stale) return pageAgain(item);
  return head.seq === null || head.seq === undefined ? [] : (rows as HistoryRow[]);
}
