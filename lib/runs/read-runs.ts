import "server-only";
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import { runs, type Run } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { cursorPage, type Page, type PageQuery } from "@/lib/pagination";
import { getThreadInCompany } from "@/lib/threads/internal";
import type { RunStep } from "./steps";
import { stepIndex } from "./to-public";

export const runNotFound = (id: string) => new AppError("not_found", `No run found with id '${id}'`, { wireCode: "run_not_found" });

/** A run with the content of the assistant message it added (none while it runs). */
export interface RunWithContent {
  run: Run;
  content: unknown;
}

/**
 * The newest assistant message of the run, found from the thread's newest end (the run's messages
 * are the newest the run saw, so the scan of the (thread_id, seq) index stops early).
 */
const contentOf = sql<unknown>`(SELECT m.content FROM messages m
  WHERE m.thread_id = runs.thread_id AND m.run_id = runs.id AND m.role = 'assistant'
  ORDER BY m.seq DESC LIMIT 1)`;

/**
 * One run of a thread of the company.
 * @throws not_found for an unknown run, another thread's or another company's (the same answer).
 */
export async function getRun(db: DbOrTx, args: { companyId: string; threadId: string; runId: string }): Promise<RunWithContent> {
  const [row] = await db
    .select({ ...getTableColumns(runs), content: contentOf })
    .from(runs)
    .where(and(eq(runs.id, args.runId), eq(runs.threadId, args.threadId), eq(runs.companyId, args.companyId)))
    .limit(1);
  if (!row) {
    await getThreadInCompany(db, { companyId: args.companyId, threadId: args.threadId });
    throw runNotFound(args.runId);
  }
  const { content, ...run } = row;
  return { run, content };
}

/** A page of a thread's runs (CONTRACT 4 list conventions), newest first by default. */
export async function listRuns(db: DbOrTx, args: { companyId: string; threadId: string; query: PageQuery }): Promise<Page<RunWithContent>> {
  await getThreadInCompany(db, { companyId: args.companyId, threadId: args.threadId });
  const page = await cursorPage(db, {
    table: runs,
    idColumn: runs.id,
    createdColumn: runs.createdAt,
    where: and(eq(runs.threadId, args.threadId), eq(runs.companyId, args.companyId)),
    page: args.query,
  });
  if (page.data.length === 0) return { data: [], hasMore: false };
  const ids = page.data.map((r) => r.id);
  const contents = (await db.execute(sql`
    SELECT DISTINCT ON (run_id) run_id, content FROM messages
    WHERE thread_id = ${args.threadId} AND role = 'assistant' AND run_id IN (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})
    ORDER BY run_id, seq DESC`)) as unknown as { run_id: string; content: unknown }[];
  const byRun = new Map(contents.map((c) => [c.run_id, c.content]));
  return { data: page.data.map((run) => ({ run, content: byRun.get(run.id) ?? "" })), hasMore: page.hasMore };
}

/** The run's steps in order, paged by step id (CONTRACT 6 extension; default order asc, as a timeline reads). */
export async function listRunSteps(
  db: DbOrTx,
  args: { companyId: string; threadId: string; runId: string; query: PageQuery },
): Promise<{ run: Run; page: Page<{ step: RunStep; index: number }> }> {
  const [run] = await db
    .select()
    .from(runs)
    .where(and(eq(runs.id, args.runId), eq(runs.threadId, args.threadId), eq(runs.companyId, args.companyId)))
    .limit(1);
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

