import "server-only";
import type { SQL } from "drizzle-orm";
import { sql } from "@/db/sql";
import type { DbOrTx } from "@/db/types";
import { containsPattern } from "@/lib/persistence/like-pattern";
import { messageTextSql, textSnippet } from "./message-text";

export interface ThreadPreview {
  /** The first user message's text (the first message's, when no user message has text). */
  preview: string | null;
  /** With a search: the first message containing it, cut around the match. */
  match: string | null;
}

/** Enough of a message to cut a snippet from without reading a whole long message. */
const READ_CHARS = 2000;

/**
 * Previews of a page of the company's threads, by thread id. Each lookup walks one thread's
 * messages in order (messages_thread_seq_idx) and stops at the first hit.
 */
export async function findThreadPreviews(
  db: DbOrTx,
  args: { companyId: string; threadIds: string[]; q?: string },
): Promise<Map<string, ThreadPreview>> {
  if (args.threadIds.length === 0) return new Map();
  const text = messageTextSql(sql`m.content`);
  const first = (filter: SQL) => sql`(SELECT left(${text}, ${READ_CHARS}) FROM messages m
    WHERE m.thread_id = t.id AND m.company_id = ${args.companyId} AND ${filter}
    ORDER BY m.seq LIMIT 1)`;
  const hasText = sql`${text} IS NOT NULL`;
  const rows = (await db.execute(sql`
    SELECT t.id,
      COALESCE(${first(sql`m.role = 'user' AND ${hasText}`)}, ${first(hasText)}) AS preview,
      ${args.q ? first(sql`${text} ILIKE ${containsPattern(args.q)} ESCAPE '\\'`) : sql`NULL`} AS match
    FROM jsonb_array_elements_text(${JSON.stringify(args.threadIds)}::jsonb) AS t(id)`)) as unknown as {
    id: string;
    preview: string | null;
    match: string | null;
  }[];
  return new Map(
    rows.map((r) => [
      r.id,
      {
        preview: r.preview === null ? null : textSnippet(r.preview),
        match: r.match === null ? null : textSnippet(r.match, args.q),
      },
    ]),
  );
}
