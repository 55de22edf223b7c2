import "server-only";
import { sql } from "@/db/sql";
import { RUN_STATUS } from "@/db/enums";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { cancelLocalRun } from "./active-runs";
import { endActiveRuns } from "./end-active-runs";
import { getRun, type RunWithContent } from "./read-runs";

/** How long a cancel waits for the executing server to stop and store the run before marking it itself. */
const CANCEL_WAIT_MS = 3_000;
const POLL_MS = 50;

const finished = (id: string, status: string) =>
  new AppError(
    "conflict",
    `Run ${id} already finished (status '${status}'); only a queued or in-progress run can be cancelled`,
    {
      wireCode: "run_not_active",
    },
  );

/**
 * POST …/runs/{id}/cancel (CONTRACT 6): marks the request, stops the run here if local, and answers
 * once it is stored `cancelled` (billed for what was generated). An executor silent past
 * CANCEL_WAIT_MS (dead server) has its run ended here, releasing the thread; the reconciler
 * releases its hold.
 * @throws not_found (another company's run or thread), conflict (the run already finished).
 */
export async function cancelRun(
  db: DbOrTx,
  args: { companyId: string; threadId: string; runId: string },
): Promise<RunWithContent> {
  const marked = (await db.execute(sql`
    UPDATE active_runs SET cancel_requested_at = coalesce(cancel_requested_at, now())
    WHERE run_id = ${args.runId} AND thread_id = ${args.threadId} AND company_id = ${args.companyId}
    RETURNING run_id`)) as unknown as { run_id: string }[];
  if (marked.length === 0) {
    const { run } = await getRun(db, args);
    throw finished(run.id, run.status);
  }
  const local = cancelLocalRun(args.runId);
  const deadline = Date.now() + CANCEL_WAIT_MS;
  if (local) await Promise.race([local, new Promise((r) => setTimeout(r, CANCEL_WAIT_MS))]);
  for (;;) {
    const current = await getRun(db, args);
    if (current.run.status !== RUN_STATUS.queued && current.run.status !== RUN_STATUS.in_progress) {
      // It finished on its own before the cancel reached it: nothing was cancelled.
      if (current.run.status !== RUN_STATUS.cancelled) throw finished(current.run.id, current.run.status);
      return current;
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  await endActiveRuns(db, sql`thread_id = ${args.threadId} AND run_id = ${args.runId}`, RUN_STATUS.cancelled, null);
  return getRun(db, args);
}
