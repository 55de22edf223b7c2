import "server-only";
import { sql } from "@/db/sql";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import type { PageQuery } from "@/lib/pagination";
import { forgetHistory } from "@/lib/threads/history-cache";
import { getThreadInCompany } from "@/lib/threads/internal";
import { toConversation } from "./conversation";
import type { StoredItemMessage } from "./internal";
import { messageIdOfItem, toItems } from "./output";

const itemNotFound = (id: string) =>
  new AppError("not_found", `Item with id '${id}' not found.`, { wireCode: "item_not_found" });

/**
 * `GET /v1/conversations/{id}/items`: the thread's messages as Responses items, by seq (`after`
 * may name any item; a page holds `limit` messages' items).
 * @throws not_found for another company's thread; invalid_request for an unknown `after`.
 */
export async function listConversationItems(
  db: DbOrTx,
  args: { companyId: string; threadId: string; query: PageQuery },
) {
  const thread = await getThreadInCompany(db, args);
  const { limit, order } = args.query;
  let after = sql`true`;
  let skip: string | undefined;
  if (args.query.after) {
    const { messageId } = messageIdOfItem(args.query.after);
    const [at] = (await db.execute(
      sql`SELECT seq FROM messages WHERE thread_id = ${thread.id} AND id = ${messageId}`,
    )) as unknown as { seq: number }[];
    if (!at) throw new AppError("invalid_request", "after: no item with that id in this list", { param: "after" });
    // Items of the same message after the one named come first.
    after = order === "desc" ? sql`seq <= ${at.seq}` : sql`seq >= ${at.seq}`;
    skip = args.query.after;
  }
  const rows = (await db.execute(sql`
    SELECT id, role, content, extra, seq, extract(epoch FROM created_at)::bigint::int AS created_s FROM messages
    WHERE thread_id = ${thread.id} AND ${after}
    ORDER BY seq ${order === "desc" ? sql`DESC` : sql`ASC`} LIMIT ${limit + 2}`)) as unknown as StoredItemMessage[];
  let items = rows.flatMap((m) => (order === "desc" ? toItems(m).toReversed() : toItems(m)));
  if (skip) {
    const at = items.findIndex((i) => i.id === skip);
    items = items.slice(at + 1);
  }
  const data = items.slice(0, limit);
  return {
    object: "list" as const,
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: items.length > limit,
  };
}

async function messageOfItem(db: DbOrTx, args: { companyId: string; threadId: string; itemId: string }) {
  const thread = await getThreadInCompany(db, args);
  const { messageId, callIndex } = messageIdOfItem(args.itemId);
  const [m] = (await db.execute(sql`
    SELECT id, role, content, extra, seq, extract(epoch FROM created_at)::bigint::int AS created_s FROM messages
    WHERE thread_id = ${thread.id} AND id = ${messageId}`)) as unknown as StoredItemMessage[];
  const item = m ? toItems(m).find((i) => i.id === args.itemId) : undefined;
  if (!m || !item) throw itemNotFound(args.itemId);
  return { thread, message: m, item, callIndex };
}

/** `GET /v1/conversations/{id}/items/{item_id}`. @throws not_found. */
export async function getConversationItem(db: DbOrTx, args: { companyId: string; threadId: string; itemId: string }) {
  return (await messageOfItem(db, args)).item;
}

/**
 * `DELETE /v1/conversations/{id}/items/{item_id}`: deletes the message holding the item (a
 * function_call item's whole assistant turn); answers the conversation, as OpenAI does.
 * @throws not_found.
 */
export async function deleteConversationItem(
  db: DbOrTx,
  args: { companyId: string; threadId: string; itemId: string },
) {
  const { thread, message } = await messageOfItem(db, args);
  await db.execute(sql`DELETE FROM messages WHERE thread_id = ${thread.id} AND id = ${message.id}`);
  forgetHistory(args.companyId, thread.id);
  return toConversation(thread);
}
