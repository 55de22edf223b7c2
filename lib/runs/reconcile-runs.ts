import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { RUN_STATUS } from "@/db/enums";
import type { DbOrTx } from "@/db/types";
import { goneOwners } from "@/lib/billing/lease-owner";
import { log } from "@/lib/log";
import { toStorableJson } from "@/lib/persistence/pg-text";

/** A run still active this long after it started has an executor that is stuck or gone unseen (another host). */
export const STALE_RUN_AFTER_S = 30 * 60;

const SERVER_LOST = { code: "server_lost", message: "The server running this run stopped before the run finished" };

/**
 * Marks active runs matching `where` failed, releasing their threads. `completed_at` stays unset:
 * should the executor still be alive after all (a partition, not a crash), its own write of the
 * real outcome wins, bill included. Returns how many were marked.
 */
async function failActive(db: DbOrTx, where: SQL, error: { code: string; message: string }): Promise<number> {
  const rows = (await db.execute(sql`
    UPDATE runs SET status = ${RUN_STATUS.failed}::run_status, error = ${toStorableJson(error)}::jsonb, owner = NULL
    WHERE status IN ('queued', 'in_progress') AND ${where}
    RETURNING id`)) as unknown as { id: string }[];
  if (rows.length > 0) log.warn({ runs: rows.map((r) => r.id), reason: error.code }, "marked orphaned runs failed");
  return rows.length;
}

/**
 * The active runs of every process this one can tell is gone (lib/billing/lease-owner.ts: a dead
 * pid on this host, or the server this one replaced), marked failed within one reconciler tick of
 * the crash (seconds), so a thread never stays locked by a dead server. Reads the partial index of
 * active runs only.
 */
export async function failRunsOfGoneOwners(db: DbOrTx): Promise<number> {
  const owners = (await db.execute(sql`
    SELECT DISTINCT owner FROM runs WHERE status IN ('queued', 'in_progress') AND owner IS NOT NULL`)) as unknown as { owner: string }[];
  if (owners.length === 0) return 0;
  const gone = goneOwners(owners.map((r) => r.owner));
  if (gone.length === 0) return 0;
  return failActive(db, sql`owner IN (${sql.join(gone.map((o) => sql`${o}`), sql`, `)})`, SERVER_LOST);
}

/** The slow fallback for owners no process here can judge: runs active for STALE_RUN_AFTER_S. */
export async function failStaleRuns(db: DbOrTx): Promise<number> {
  return failActive(db, sql`created_at < now() - make_interval(secs => ${STALE_RUN_AFTER_S})`, {
    code: "run_timeout",
    message: `The run did not finish within ${STALE_RUN_AFTER_S / 60} minutes`,
  });
}
