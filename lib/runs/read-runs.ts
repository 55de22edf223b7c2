import "server-only";
import { and, eq, getTableColumns } from "drizzle-orm";
import { sql } from "@/db/sql";
import { RUN_STATUS } from "@/db/enums";
import { activeRuns, runs, type Run } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { cursorPage, type Page, type PageQuery } from "@/lib/pagination";
import { getThreadInCompany } from "@/lib/threads/internal";
import type { RunStep } from "./steps";
import { stepIndex } from "./to-public";

const runNotFound = (id: string) =>
  new AppError("not_found", `No run found with id '${id}'`, { wireCode: "run_not_found" });

/** A run with the content of the assistant message it added (none while it runs). */
export interface RunWithContent {
  run: Run;
  content: unknown;
}

/** The thread's active run as a run that has not ended (it has no `runs` row yet); `runId` narrows it. */
async function findActiveRun(
  db: DbOrTx,
  args: { companyId: string; threadId: string; runId?: string },
): Promise<Run | null> {
  const [a] = await db
    .select()
    .from(activeRuns)
    .where(
      and(
        eq(activeRuns.threadId, args.threadId),
        eq(activeRuns.companyId, args.companyId),
        args.runId ? eq(activeRuns.runId, args.runId) : undefined,
      ),
    )
    .limit(1);
  if (!a) return null;
  return {
    id: a.runId,
    companyId: a.companyId,
    threadId: a.threadId,
    model: a.model,
    status: RUN_STATUS.in_progress,
    stream: a.stream,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    costMicro: 0,
    latencyMs: null,
    finishReason: null,
    error: null,
    toolCalls: [],
    appliedRules: [],
    citations: [],
    steps: [],
    previousRunId: null,
    request: null,
    owner: a.owner,
    cancelRequestedAt: a.cancelRequestedAt,
    createdAt: a.createdAt,
    completedAt: null,
  };
}

/** The run's newest assistant message, scanned from the thread's newest end so the (thread_id, seq) index stops early. */
const contentOf = sql<unknown>`(SELECT m.content FROM messages m
  WHERE m.thread_id = runs.thread_id AND m.run_id = runs.id AND m.role = 'assistant'
  ORDER BY m.seq DESC LIMIT 1)`;

/**
 * One run of a thread of the company.
 * @throws not_found for an unknown run, another thread's or another company's (the same answer).
 */
export async function getRun(
  db: DbOrTx,
  args: { companyId: string; threadId: string; runId: string },
): Promise<RunWithContent> {
  const found = await storedRun(db, args);
  if (found) return found;
  const active = await findActiveRun(db, args);
  if (active) return { run: active, content: null };
  // The run may have ended between the two reads (its active row deleted, its runs row inserted in
  // one statement): read the stored row once more before calling it unknown.
  const ended = await storedRun(db, args);
  if (ended) return ended;
  await getThreadInCompany(db, { companyId: args.companyId, threadId: args.threadId });
  throw runNotFound(args.runId);
}

async function storedRun(
  db: DbOrTx,
  args: { companyId: string; threadId: string; runId: string },
): Promise<RunWithContent | null> {
  const [row] = await db
    .select({ ...getTableColumns(runs), content: contentOf })
    .from(runs)
    .where(and(eq(runs.id, args.runId), eq(runs.threadId, args.threadId), eq(runs.companyId, args.companyId)))
    .limit(1);
  if (!row) return null;
  const { content, ...run } = row;
  return { run, content };
}

/**
 * The stored runs' page with the active run in place: it is the newest, so first in desc and last
 * in asc; as a cursor it stands before every stored run (desc) or after them (asc).
 */
async function pageWithActive(
  db: DbOrTx,
  args: { companyId: string; threadId: string; query: PageQuery },
): Promise<Page<Run>> {
  const active = await findActiveRun(db, args);
  const desc = args.query.order === "desc";
  const afterActive = active !== null && args.query.after === active.id;
  if (afterActive && !desc) return { data: [], hasMore: false };
  const stored = await cursorPage(db, {
    table: runs,
    idColumn: runs.id,
    createdColumn: runs.createdAt,
    where: and(eq(runs.threadId, args.threadId), eq(runs.companyId, args.companyId)),
    page: afterActive ? { ...args.query, after: undefined } : args.query,
  });
  if (!active || afterActive) return stored;
  const { limit } = args.query;
  if (desc) {
    if (args.query.after) return stored;
    const data = [active, ...stored.data];
    return { data: data.slice(0, limit), hasMore: stored.hasMore || data.length > limit };
  }
  if (stored.hasMore) return stored;
  if (stored.data.length < limit) return { data: [...stored.data, active], hasMore: false };
  return { data: stored.data, hasMore: true };
}

/** A page of a thread's runs (CONTRACT 4 list conventions), newest first by default. */
export async function listRuns(
  db: DbOrTx,
  args: { companyId: string; threadId: string; query: PageQuery },
): Promise<Page<RunWithContent>> {
  await getThreadInCompany(db, { companyId: args.companyId, threadId: args.threadId });
  const page = await pageWithActive(db, args);
  if (page.data.length === 0) return { data: [], hasMore: false };
  const ids = page.data.map((r) => r.id);
  const contents = (await db.execute(sql`
    SELECT DISTINCT ON (run_id) run_id, content FROM messages
    WHERE thread_id = ${args.threadId} AND role = 'assistant' AND run_id IN (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})
    ORDER BY run_id, seq DESC`)) as unknown as { run_id: string; content: unknown }[];
  const byRun = new Map(contents.map((c) => [c.run_id, c.content]));
  return { data: page.data.map((run) => ({ run, content: byRun.get(run.id) ?? "" })), hasMore: page.hasMore };
}

/** The run's steps in order, paged by step id (CONTRACT 6 extension; default order asc, as a timeline reads). */
export async function listRunSteps(
  db: DbOrTx,
  args: { companyId: string; threadId: string; runId: string; query: PageQuery },
): Promise<{ run: Run; page: Page<{ step: RunStep; index: number }> }> {
  const [stored] = await db
    .select()
    .from(runs)
    .where(and(eq(runs.id, args.runId), eq(runs.threadId, args.threadId), eq(runs.companyId, args.companyId)))
    .limit(1);
  // As getRun: a run that ended between the two reads is read from runs once more.
  const run = stored ?? (await findActiveRun(db, args)) ?? (await storedRun(db, args))?.run;
  if (!run) {
    await getThreadInCompany(db, { companyId: args.companyId, threadId: args.threadId });
    throw runNotFound(args.runId);
  }
  const all = (run.steps as RunStep[]).map((step, index) => ({ step, index }));
  const ordered = args.query.order === "desc" ? all.reverse() : all;
  let start = 0;
  if (args.query.after) {
    const at = stepIndex(run.id, args.query.after);
    const pos = at === null ? -1 : ordered.findIndex((s) => s.index === at);
    if (pos < 0) throw new AppError("invalid_request", "after: no step with that id in this run", { param: "after" });
    start = pos + 1;
  }
  const data = ordered.slice(start, start + args.query.limit);
  return { run, page: { data, hasMore: start + args.query.limit < ordered.length } };
}
