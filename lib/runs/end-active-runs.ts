import "server-only";
import type { SQL } from "drizzle-orm";
import { sql } from "@/db/sql";
import type { RunStatus } from "@/db/enums";
import type { DbOrTx } from "@/db/types";
import { toStorableJson } from "@/lib/persistence/pg-text";

/**
 * Ends runs without their executor in ONE statement: deletes their active_runs rows (freeing
 * threads) and stores `runs` rows with `status` and `error`. `completed_at` stays unset, so a live
 * executor's real outcome replaces the row. `where` filters active_runs; returns the ended ids.
 */
export async function endActiveRuns(
  db: DbOrTx,
  where: SQL,
  status: RunStatus,
  error: { code: string; message: string } | null,
): Promise<string[]> {
  const rows = (await db.execute(sql`
    WITH gone AS (DELETE FROM active_runs WHERE ${where} RETURNING run_id, thread_id, company_id, model, stream, created_at)
    INSERT INTO runs (id, company_id, thread_id, model, status, stream, error, created_at)
    SELECT run_id, company_id, thread_id, model, ${status}::run_status, stream, ${error ? toStorableJson(error) : null}::jsonb, created_at FROM gone
    ON CONFLICT (id) DO NOTHING
    RETURNING id`)) as unknown as { id: string }[];
  return rows.map((r) => r.id);
}
