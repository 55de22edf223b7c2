import "server-only";
import { eq } from "drizzle-orm";
import { apiKeys, type ApiKey } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { notFound } from "@/lib/errors";

/** Operator lookup across companies, for the CLI only; tenant code uses getKeyInCompany. */
export async function getKeyById(db: DbOrTx, args: { keyId: string }): Promise<ApiKey> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, args.keyId)).limit(1);
  if (!row) throw notFound("SDK key");
  return row;
}
