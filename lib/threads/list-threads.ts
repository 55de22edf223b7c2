import "server-only";
import { and, eq } from "drizzle-orm";
import { sql } from "@/db/sql";
import { messages, threads, type Thread } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { cursorPage, type Page } from "@/lib/pagination";
import { containsPattern } from "@/lib/persistence/like-pattern";
import { messageTextSql } from "./message-text";
import type { ThreadListQuery } from "./schemas";

/**
 * The company's threads, newest first; with `q`, only threads with a message whose text contains
 * it (any case, wildcards literal).
 */
export async function listThreads(
  db: DbOrTx,
  args: { companyId: string; query: ThreadListQuery & { q?: string } },
): Promise<Page<Thread>> {
  const { q } = args.query;
  return cursorPage(db, {
    table: threads,
    idColumn: threads.id,
    createdColumn: threads.createdAt,
    where: and(
      eq(threads.companyId, args.companyId),
      args.query.source ? eq(threads.source, args.query.source) : undefined,
      q
        ? sql`EXISTS (SELECT 1 FROM ${messages} WHERE ${messages.threadId} = ${threads.id}
            AND ${messages.companyId} = ${args.companyId}
            AND ${messageTextSql(sql`${messages.content}`)} ILIKE ${containsPattern(q)} ESCAPE '\\')`
        : undefined,
    ),
    page: args.query,
  });
}
