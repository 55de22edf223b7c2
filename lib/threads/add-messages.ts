import "server-only";
import { createHash } from "node:crypto";
import { sql } from "@/db/sql";
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
  extra: Record<string, unknown>;
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

/** Added rows, ascending, into the history cache (where they follow its rows). */
function cacheAdded(companyId: string, threadId: string, ascending: InsertedRow[]): void {
  appendHistory(
    companyId,
    threadId,
    ascending.map((r) => ({
      seq: r.seq,
      role: r.role,
      content: r.content,
      extra: Object.keys(r.extra).length ? r.extra : null,
      tokens: r.tokens,
    })),
  );
}

/**
 * Appends messages all or none in ONE statement that bumps `threads.next_seq` and inserts them with
 * the reserved seqs. The UPDATE's row lock makes a concurrent add wait and reread the counter, so
 * seqs never collide; it lasts one statement (or the caller's transaction), never a run. Token
 * counts are stored per message; data: images are stored as their digest, with bytes once per
 * company in `message_images`. `imageDigests` are precomputed, keyed `message.part`.
 * @throws not_found when the thread does not exist or belongs to another company.
 */
export async function addMessages(
  db: DbOrTx,
  args: {
    companyId: string;
    threadId: string;
    /** `extra`: the wire message's other fields (`tool_calls`, `tool_call_id`), as a run stores them. */
    messages: (MessageInput & { extra?: Record<string, unknown> })[];
    imageDigests?: Record<string, string>;
  },
): Promise<Message[]> {
  const n = args.messages.length;
  const tokens = await Promise.all(args.messages.map((m) => messageTokens({ ...m, ...m.extra })));
  const items = args.messages.map((m, i) => ({
    id: newId("message"),
    role: m.role,
    extra: m.extra ?? {},
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
    INSERT INTO messages (id, company_id, thread_id, role, content, extra, tokens, seq)
    SELECT x.id, ${args.companyId}, ${args.threadId}, x.role, x.content, x.extra, x.tokens, t.base + x.i
    FROM t, jsonb_to_recordset(${toStorableJson(items)}::jsonb)
      AS x(id text, role text, content jsonb, extra jsonb, tokens int, i int)
    RETURNING id, role, content, extra, run_id, seq, tokens, (extract(epoch FROM created_at) * 1000)::float8 AS created_ms`;
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
    extra: r.extra,
    runId: r.run_id,
    seq: r.seq,
    tokens: r.tokens,
    createdAt: new Date(r.created_ms),
  }));
}
