import "server-only";
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Message } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { db as rootDb } from "@/db/client";
import { appendHistory } from "./history-cache";
import { newId } from "@/lib/ids";
import { toStorableJson } from "@/lib/persistence/pg-text";
import { storableContent } from "./storable-content";
import { threadNotFound } from "./internal";
import { messageTokens } from "./message-tokens";
import type { MessageInput } from "./schemas";

interface InsertedRow {
  id: string;
  role: string;
  content: unknown;
  run_id: string | null;
  seq: number;
  tokens: number | null;
  created_ms: number;
}

interface ImageBytes {
  sha256: string;
  mime: string;
  base64: string;
}

const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

/** The `data:` images of the messages, keyed as storableContent names them (the same SHA-256). */
function dataImages(messages: MessageInput[], digests: Record<string, string> | undefined): ImageBytes[] {
  const out = new Map<string, ImageBytes>();
  messages.forEach((m, i) => {
    if (typeof m.content === "string") return;
    m.content.forEach((p, j) => {
      if (p.type !== "image_url") return;
      const url = (p as { image_url: { url: string } }).image_url.url;
      if (!url.startsWith("data:")) return;
      const sha256 = digests?.[`${i}.${j}`] ?? createHash("sha256").update(url).digest("hex");
      const comma = url.indexOf(",");
      const header = url.slice(5, comma);
      const payload = url.slice(comma + 1);
      let base64 = payload;
      if (!header.endsWith(";base64")) {
        try {
          base64 = Buffer.from(decodeURIComponent(payload), "utf8").toString("base64");
        } catch {
          return; // not decodable: kept as its digest only (a run says the image is not available)
        }
      } else if (!BASE64.test(payload)) return;
      out.set(sha256, { sha256, mime: header.split(";")[0] || "application/octet-stream", base64 });
    });
  });
  return [...out.values()];
}

/** Added rows (ascending by seq), as the database returned them, into lib/threads/history-cache.ts (where they follow its rows). */
function cacheAdded(companyId: string, threadId: string, ascending: InsertedRow[]): void {
  appendHistory(
    companyId,
    threadId,
    ascending.map((r) => ({ seq: r.seq, role: r.role, content: r.content, extra: null, tokens: r.tokens })),
  );
}

/**
 * Appends messages to a thread of the company, in the given order, all or none: ONE statement
 * that bumps `threads.next_seq` by their count and inserts them with the seqs it reserved.
 *
 * Concurrency: the UPDATE locks the thread row until that statement commits, so a concurrent add
 * to the same thread waits, then reads the bumped counter (READ COMMITTED re-checks the row):
 * seqs never collide and a bulk add is one contiguous block. The lock lasts one statement (or
 * the caller's transaction), never a run: a run adds its messages the same way when it ends, so
 * adding a message while a run is active is never refused or blocked for long.
 *
 * Each message's token count is stored with it (a run's history budget sums them). Images are
 * stored as lib/threads/storable-content.ts keeps them (a data: URI as its SHA-256 and size); the
 * bytes of data: images go once per company to `message_images`, in the same transaction, for
 * the runs that will send them. `imageDigests` are SHA-256s already computed off the event loop,
 * keyed `messageIndex.partIndex`.
 * @throws not_found when the thread does not exist or belongs to another company.
 */
export async function addMessages(
  db: DbOrTx,
  args: { companyId: string; threadId: string; messages: MessageInput[]; imageDigests?: Record<string, string> },
): Promise<Message[]> {
  const n = args.messages.length;
  const tokens = await Promise.all(args.messages.map((m) => messageTokens(m)));
  const items = args.messages.map((m, i) => ({
    id: newId("message"),
    role: m.role,
    content: storableContent(m.content, i, args.imageDigests),
    tokens: tokens[i],
    i,
  }));
  const images = dataImages(args.messages, args.imageDigests);
  const insert = sql`
    WITH t AS (
      UPDATE threads SET next_seq = next_seq + ${n}
      WHERE id = ${args.threadId} AND company_id = ${args.companyId}
      RETURNING next_seq - ${n} AS base)
    INSERT INTO messages (id, company_id, thread_id, role, content, tokens, seq)
    SELECT x.id, ${args.companyId}, ${args.threadId}, x.role, x.content, x.tokens, t.base + x.i
    FROM t, jsonb_to_recordset(${toStorableJson(items)}::jsonb) AS x(id text, role text, content jsonb, tokens int, i int)
    RETURNING id, role, content, run_id, seq, tokens, (extract(epoch FROM created_at) * 1000)::float8 AS created_ms`;
  const rows =
    images.length === 0
      ? ((await db.execute(insert)) as unknown as InsertedRow[])
      : await db.transaction(async (tx) => {
          const inserted = (await tx.execute(insert)) as unknown as InsertedRow[];
          if (inserted.length === 0) return inserted;
          for (const img of images) {
            await tx.execute(sql`
              INSERT INTO message_images (company_id, sha256, mime_type, bytes)
              VALUES (${args.companyId}, ${img.sha256}, ${img.mime}, decode(${img.base64}, 'base64'))
              ON CONFLICT DO NOTHING`);
          }
          return inserted;
        });
  if (rows.length === 0) throw threadNotFound(args.threadId);
  rows.sort((a, b) => a.seq - b.seq);
  // Committed (not inside a caller's transaction): the thread's next run need not read them back.
  if (db === rootDb) cacheAdded(args.companyId, args.threadId, rows);
  return rows.map((r) => ({
    id: r.id,
    companyId: args.companyId,
    threadId: args.threadId,
    role: r.role,
    content: r.content,
    extra: {},
    runId: r.run_id,
    seq: r.seq,
    tokens: r.tokens,
    createdAt: new Date(r.created_ms),
  }));
}
