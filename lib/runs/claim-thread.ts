import "server-only";
import { sql } from "drizzle-orm";
import { claimDb, db } from "@/db/client";
import type { ThreadSource } from "@/db/enums";
import { currentLeaseOwner, formatLeaseOwner } from "@/lib/billing/lease-owner";
import { AppError } from "@/lib/errors";
import { threadNotFound } from "@/lib/threads/internal";
import type { RunContext } from "./context";
import type { HistoryRow } from "./stages/history";

interface ClaimRow extends Partial<HistoryRow> {
  source: ThreadSource | null;
  claimed: number;
}

async function activeRunOf(threadId: string): Promise<string | null> {
  const [row] = (await db.execute(sql`SELECT run_id FROM active_runs WHERE thread_id = ${threadId}`)) as unknown as { run_id: string }[];
  return row?.run_id ?? null;
}

/**
 * Makes the run its thread's active run and reads the thread's newest `pageSize` messages above
 * seq `afterSeq` (-1: from the first; lib/runs/history-cache.ts has the rest), in ONE
 * statement: a row of active_runs (owned by this process) is inserted unless the thread already
 * has one, which its primary key refuses (409, never two runs interleaving on one thread). The
 * page is read in the same statement, so a run costs no extra round trip for a thread that fits
 * in it. The run's `runs` row is written when it ends (lib/runs/persist-run.ts).
 *
 * The claim commits on its own relaxed connection (db/client.ts claimDb: pipelined with the
 * process's other claims; synchronous_commit off: no WAL flush of its own, about a
 * third of a run's database time when it had one). Losing it is harmless: only a crash of
 * PostgreSQL itself can, before any later durable commit flushed it; the run is then stored whole
 * when it ends, as any run is.
 * @throws not_found for another company's thread or an unknown one; conflict when a run is active.
 */
export async function claimThread(ctx: RunContext, pageSize: number, afterSeq = -1): Promise<HistoryRow[]> {
  const rows = (await claimDb.execute(sql`
    WITH t AS (SELECT id, source FROM threads WHERE id = ${ctx.threadId} AND company_id = ${ctx.companyId}),
    r AS (
      INSERT INTO active_runs (thread_id, run_id, company_id, model, stream, owner)
      SELECT t.id, ${ctx.runId}, ${ctx.companyId}, ${ctx.requestedModel}, ${ctx.stream}, ${formatLeaseOwner(currentLeaseOwner())}
      FROM t
      ON CONFLICT (thread_id) DO NOTHING
      RETURNING run_id)
    SELECT c.source, c.claimed, h.seq, h.role, h.content, h.extra, h.tokens
    FROM (SELECT (SELECT source FROM t) AS source, (SELECT count(*) FROM r)::int AS claimed) c
    LEFT JOIN LATERAL (
      SELECT seq, role, content, extra, tokens FROM messages
      WHERE thread_id = ${ctx.threadId} AND seq > ${afterSeq} AND c.claimed = 1
      ORDER BY seq DESC LIMIT ${pageSize}) h ON true`)) as unknown as ClaimRow[];
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
  return head.seq === null || head.seq === undefined ? [] : (rows as HistoryRow[]);
}
