import "server-only";
import type { SQL } from "drizzle-orm";
import { sql } from "@/db/sql";
import { claimSql, db } from "@/db/client";
import { runSql } from "@/db/render-sql";
import { RUN_STATUS, type ThreadSource } from "@/db/enums";
import { currentLeaseOwner, formatLeaseOwner } from "@/lib/billing/lease-owner";
import { AppError } from "@/lib/errors";
import { dbState, isConnectionError } from "@/db/resilience";
import { log } from "@/lib/log";
import type { HistoryRow } from "@/lib/threads/history-cache";
import { threadNotFound } from "@/lib/threads/internal";
import type { RunContext } from "./context";
import { endActiveRuns } from "./end-active-runs";

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
 * One claim: an active_runs row unless the thread has one (primary key), plus the thread's page
 * above `after_seq`, in one statement. `stale`: the snapshot still shows another run, so its
 * release committed after the snapshot and the page may lack its answer (claimThread rereads). A
 * lone claim takes this lean form rather than claimMany's.
 */
function claimOne(c: ClaimItem): Promise<ClaimRow[]> {
  return runSql<ClaimRow>(
    claimSql,
    sql`
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
    LEFT JOIN LATERAL (${newestPage(c.thread_id, c.after_seq, c.page, sql`c.claimed = 1`)}) h ON true`,
  );
}

/**
 * Several claims in one statement, rows tagged with the claim's index `n`, newest first. Inserted
 * in thread order so batches never deadlock; a second claim on a thread in a batch conflicts.
 * LATERAL … LIMIT 1 keeps the lookup by primary key: as a plain join, jsonb_to_recordset's row
 * guess made the planner scan the whole threads table.
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
  return runSql<ClaimRow & { n: number }>(claimSql, claimManySql(items));
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
 * A claim whose connection failed may have committed: its run fails, so its active_runs row is
 * ended as the reconciler would, retried while the database is away, else a live server's lost
 * acknowledgement locks the thread until the stale-run sweep.
 */
function releaseUncertainClaim(c: ClaimItem): void {
  endClaim(c);
  setTimeout(() => endClaim(c), LATE_RELEASE_MS).unref();
}

const waiting: Waiting[] = [];
let inFlight = false;

/**
 * Runs a claim statement. A connection failure after it went out may hide a commit, so the claims
 * are released; a statement the breaker refused never left.
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

// Claims arriving while one is in flight go out together as the next statement; a lone claim goes
// out at once.
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
 * Makes the run its thread's active run and reads the newest `pageSize` messages above `afterSeq`
 * in ONE statement; the active_runs primary key refuses a second run (409). Concurrent claims share
 * a statement (pump). The claim commits on claimSql (synchronous_commit off): only a PostgreSQL
 * crash can lose it, and the run is stored whole at the end.
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
