import "server-only";
import { sql } from "@/db/sql";
import { db } from "@/db/client";
import { dbState } from "@/db/resilience";
import { log } from "@/lib/log";

/**
 * Runs executing in this process: a local cancel stops one at once; a cancel on another server is
 * seen by polling `active_runs.cancel_requested_at` every CANCEL_POLL_MS, only while runs are
 * active.
 */
const CANCEL_POLL_MS = 200;

interface ActiveRun {
  cancel: () => void;
  finished: Promise<void>;
}

const active = new Map<string, ActiveRun>();
let poller: NodeJS.Timeout | undefined;
let polling = false;

async function poll(): Promise<void> {
  if (polling || active.size === 0 || dbState() === "down") return;
  polling = true;
  try {
    const ids = [...active.keys()];
    const rows = (await db.execute(sql`
      SELECT run_id AS id FROM active_runs WHERE run_id IN (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )}) AND cancel_requested_at IS NOT NULL`)) as unknown as { id: string }[];
    for (const r of rows) active.get(r.id)?.cancel();
  } catch (err) {
    log.debug({ err }, "run cancel poll failed");
  } finally {
    polling = false;
  }
}

/** Registers a run of this process until `finished` settles. `cancel` stops it (idempotent). */
export function trackRun(runId: string, cancel: () => void, finished: Promise<unknown>): void {
  const done = finished.then(
    () => undefined,
    () => undefined,
  );
  active.set(runId, { cancel, finished: done });
  poller ??= setInterval(() => void poll(), CANCEL_POLL_MS).unref();
  void done.then(() => {
    active.delete(runId);
    if (active.size === 0 && poller) {
      clearInterval(poller);
      poller = undefined;
    }
  });
}

/** Stops a run of this process now; its promise settles once the run is stored. Null when the run is not here. */
export function cancelLocalRun(runId: string): Promise<void> | null {
  const run = active.get(runId);
  if (!run) return null;
  run.cancel();
  return run.finished;
}
