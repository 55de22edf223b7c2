import "server-only";
import { sql } from "drizzle-orm";
import { db as rootDb } from "@/db/client";
import type { DbOrTx } from "@/db/types";
import { randomBase62 } from "@/lib/ids";

/**
 * Collections for retrieval tests. `knowledge_collections` belongs to the knowledge API's
 * migration; until that is on this branch a minimal stand-in with the columns search reads is
 * created (committed, once; a no-op where the real table exists).
 */
export async function ensureCollectionsTable(): Promise<void> {
  await rootDb.execute(sql`CREATE TABLE IF NOT EXISTS knowledge_collections (
    id text PRIMARY KEY, company_id text NOT NULL, name text NOT NULL, is_active boolean NOT NULL DEFAULT true)`);
}

export async function makeCollection(db: DbOrTx, args: { companyId: string; isActive?: boolean }): Promise<string> {
  const id = `kb_${randomBase62(22)}`;
  await db.execute(
    sql`INSERT INTO knowledge_collections (id, company_id, name, is_active) VALUES (${id}, ${args.companyId}, ${"Test collection " + id.slice(-4)}, ${args.isActive ?? true})`,
  );
  return id;
}
