import "server-only";
import { apiKeys, type ApiKey } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import type { Scope } from "@/db/enums";
import { newId } from "@/lib/ids";
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from "./schemas";
import { displayPrefix, generateKeySecret, hashKeySecret } from "./secret";

/** Creates a key and returns its secret: the only time the secret exists outside the caller's hands. */
export async function createKey(
  db: DbOrTx,
  args: { companyId: string; name: string; scopes: Scope[]; rateLimitPerMinute?: number; expiresAt?: Date | null },
): Promise<{ key: ApiKey; secret: string }> {
  const secret = generateKeySecret();
  const [key] = await db
    .insert(apiKeys)
    .values({
      id: newId("key"),
      companyId: args.companyId,
      name: args.name,
      prefix: displayPrefix(secret),
      keyHash: hashKeySecret(secret),
      scopes: [...new Set(args.scopes)],
      rateLimitPerMinute: args.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
      expiresAt: args.expiresAt ?? null,
    })
    .returning();
  return { key: key!, secret };
}
