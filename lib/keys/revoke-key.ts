import "server-only";
import { and, eq } from "drizzle-orm";
import { KEY_STATUS } from "@/db/enums";
import { apiKeys, type ApiKey } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { getKeyInCompany } from "./internal";
import { announceKeyRevoked } from "./key-cache";

/**
 * Its JWTs stop working at once, since every JWT check re-reads the parent key.
 * @throws not_found for another company's key, conflict when already revoked.
 */
export async function revokeKey(db: DbOrTx, args: { companyId: string; keyId: string }): Promise<ApiKey> {
  const key = await getKeyInCompany(db, args);
  // Status guard in WHERE: a concurrent revoke updates nothing instead of writing twice.
  const [row] = await db
    .update(apiKeys)
    .set({ status: KEY_STATUS.revoked, revokedAt: new Date() })
    .where(and(eq(apiKeys.id, key.id), eq(apiKeys.companyId, args.companyId), eq(apiKeys.status, KEY_STATUS.active)))
    .returning();
  if (!row) throw new AppError("conflict", "Key already revoked", { wireCode: "already_revoked" });
  await announceKeyRevoked(db, row.id);
  return row;
}
