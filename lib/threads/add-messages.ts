import "server-only";
import { sql } from "drizzle-orm";
import type { Message } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId } from "@/lib/ids";
import { toStorableJson } from "@/lib/persistence/pg-text";
import { storableContent } from "@/lib/runs/storable-content";
import { threadNotFound } from "./internal";
import type { MessageInput } from "./schemas";

interface InsertedRow {
  id: string;
  role: string;
  content: unknown;
  run_id: string | null;
  seq: number;
  created_ms: number;
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
 * Images are stored as lib/runs/storable-content.ts keeps them (a data: URI as its SHA-256 and
 * size, never its bytes). `imageDigests` are SHA-256s already computed off the event loop, keyed
 * `messageIndex.partIndex`.
 * @throws not_found when the thread does not exist or belongs to another company.
 */
export async function addMessages(
  db: DbOrTx,
  args: { companyId: string; threadId: string; messages: MessageInput[]; imageDigests?: Record<string, string> },
): Promise<Message[]> {
  const n = args.messages.length;
  const items = args.messages.map((m, i) => ({ id: newId("message"), role: m.role, content: storableContent(m.content, i, args.imageDigests), i }));
  const rows = (await db.execute(sql`
    WITH t AS (
      UPDATE threads SET next_seq = next_seq + ${n}
      WHERE id = ${args.threadId} AND company_id = ${args.companyId}
      RETURNING next_seq - ${n} AS base)
    INSERT INTO messages (id, company_id, thread_id, role, content, seq)
    SELECT x.id, ${args.companyId}, ${args.threadId}, x.role, x.content, t.base + x.i
    FROM t, jsonb_to_recordset(${toStorableJson(items)}::jsonb) AS x(id text, role text, content jsonb, i int)
    RETURNING id, role, content, run_id, seq, (extract(epoch FROM created_at) * 1000)::float8 AS created_ms`)) as unknown as InsertedRow[];
  if (rows.length === 0) throw threadNotFound(args.threadId);
  return rows
    .map((r) => ({
      id: r.id,
      companyId: args.companyId,
      threadId: args.threadId,
      role: r.role,
      content: r.content,
      extra: {},
      runId: r.run_id,
      seq: r.seq,
      createdAt: new Date(r.created_ms),
    }))
    .sort((a, b) => a.seq - b.seq);
}
