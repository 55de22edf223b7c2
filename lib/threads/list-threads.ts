import "server-only";
import { and, eq } from "drizzle-orm";
import { THREAD_SOURCES } from "@/db/enums";
import { threads, type Thread } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { cursorPage, PageQuery, type Page } from "@/lib/pagination";
import { toUnix } from "@/lib/time";
import { z } from "zod";

export const ThreadListQuery = PageQuery.extend({ source: z.enum(THREAD_SOURCES).optional() });
export type ThreadListQuery = z.infer<typeof ThreadListQuery>;

export async function listThreads(db: DbOrTx, args: { companyId: string; query: ThreadListQuery }): Promise<Page<Thread>> {
  return cursorPage(db, {
    table: threads,
    idColumn: threads.id,
    createdColumn: threads.createdAt,
    where: and(eq(threads.companyId, args.companyId), args.query.source ? eq(threads.source, args.query.source) : undefined),
    page: args.query,
  });
}

/** CONTRACT 5.6 thread body. */
export function toPublicThread(t: Thread) {
  return { id: t.id, object: "thread" as const, created_at: toUnix(t.createdAt), metadata: t.metadata, source: t.source };
}
