import "server-only";
import { and, eq } from "drizzle-orm";
import { apiKeys, type ApiKey } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { notFound } from "@/lib/errors";

/** @throws not_found when the key does not exist or belongs to another company (same answer). */
export async function getKeyInCompany(db: DbOrTx, args: { companyId: string; keyId: string }): Promise<ApiKey> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, args.keyId), eq(apiKeys.companyId, args.companyId)))
    .limit(1);
  if (!row) throw notFound("SDK key");
  return row;
}
