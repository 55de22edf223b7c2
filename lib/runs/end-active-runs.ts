import "server-only";
import { sql, type SQL } from "drizzle-orm";
import type { RunStatus } from "@/db/enums";
import type { DbOrTx } from "@/db/types";
import { toStorableJson } from "@/lib/persistence/pg-text";

/**
 * Ends active runs without their executor (a cancel it did not answer, a dead server, a run that
 * could not be stored): ONE statement deletes their active_runs rows, which releases their
 * threads, and stores each as a `runs` row with `status` and `error`. `completed_at` stays unset:
 * should the executor still be alive after all (a partition, not a crash), its own write of the
 * real outcome replaces the row, bill included (lib/runs/persist-run.ts). `where` filters
 * active_runs. Returns the ids of the runs it ended.
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
