import "server-only";
import type { SQL } from "drizzle-orm";
import { sql } from "@/db/sql";
import { RUN_STATUS } from "@/db/enums";
import type { DbOrTx } from "@/db/types";
import { goneOwners } from "@/lib/billing/lease-owner";
import { log } from "@/lib/log";
import { endActiveRuns } from "./end-active-runs";

/** A run still active this long after it started has an executor that is stuck or gone unseen (another host). */
const STALE_RUN_AFTER_S = 30 * 60;

const SERVER_LOST = { code: "server_lost", message: "The server running this run stopped before the run finished" };

/** Fails the active runs matching `where` (on active_runs), releasing their threads. Returns how many. */
async function failActive(db: DbOrTx, where: SQL, error: { code: string; message: string }): Promise<number> {
  const ids = await endActiveRuns(db, where, RUN_STATUS.failed, error);
  if (ids.length > 0) log.warn({ runs: ids, reason: error.code }, "marked orphaned runs failed");
  return ids.length;
}

/**
 * Fails the active runs of every process known gone (a dead pid on this host, or the server this
 * one replaced), so a thread never stays locked by a dead server. Reads active_runs only.
 */
export async function failRunsOfGoneOwners(db: DbOrTx): Promise<number> {
  const owners = (await db.execute(sql`
    SELECT DISTINCT owner FROM active_runs`)) as unknown as { owner: string }[];
  if (owners.length === 0) return 0;
  const gone = goneOwners(owners.map((r) => r.owner));
  if (gone.length === 0) return 0;
  return failActive(
    db,
    sql`owner IN (${sql.join(
      gone.map((o) => sql`${o}`),
      sql`, `,
    )})`,
    SERVER_LOST,
  );
}

/** The slow fallback for owners no process here can judge: runs active for STALE_RUN_AFTER_S. */
export async function failStaleRuns(db: DbOrTx): Promise<number> {
  return failActive(db, sql`created_at < now() - make_interval(secs => ${STALE_RUN_AFTER_S})`, {
    code: "run_timeout",
    message: `The run did not finish within ${STALE_RUN_AFTER_S / 60} minutes`,
  });
}
