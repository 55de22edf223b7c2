import "server-only";
import { and, asc, desc, eq, gt, lt } from "drizzle-orm";
import { messages, type Message } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import type { Page } from "@/lib/pagination";
import { getThreadInCompany } from "./internal";
import type { MessageListQuery } from "./schemas";

/**
 * A page in `seq` order, newest first by default, keyset on the unique (thread_id, seq) index so
 * any depth costs the same.
 * @throws not_found for another company's thread; invalid_request for an `after` not in it.
 */
export async function listMessages(
  db: DbOrTx,
  args: { companyId: string; threadId: string; query: MessageListQuery },
): Promise<Page<Message>> {
  const { companyId, threadId, query } = args;
  await getThreadInCompany(db, { companyId, threadId });
  const scope = and(eq(messages.threadId, threadId), eq(messages.companyId, companyId));
  let keyset;
  if (query.after) {
    const [cursor] = await db
      .select({ seq: messages.seq })
      .from(messages)
      .where(and(scope, eq(messages.id, query.after)))
      .limit(1);
    if (!cursor)
      throw new AppError("invalid_request", "after: no message with that id in this thread", { param: "after" });
    keyset = query.order === "desc" ? lt(messages.seq, cursor.seq) : gt(messages.seq, cursor.seq);
  }
  const rows = await db
    .select()
    .from(messages)
    .where(and(scope, keyset))
    .orderBy(query.order === "desc" ? desc(messages.seq) : asc(messages.seq))
    .limit(query.limit + 1);
  return { data: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}
