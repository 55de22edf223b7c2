import "server-only";
import type { ApiKey } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { boundByCreator, type KeyLimits } from "./bound-by-creator";
import { createKey } from "./create-key";
import { getKeyInCompany } from "./internal";

/**
 * `POST /v1/sdk/keys`: a key creates a key that never exceeds it (scopes, rate limit, expiry; see
 * boundByCreator). The panel and the operator CLI, which act for the company's admin and the
 * operator rather than for a key, call createKey directly.
 * The caller proves the creator is a long-lived key first (lib/auth/require-key-credential.ts).
 * @throws invalid_request naming the field that exceeds the creator.
 */
export async function createChildKey(
  db: DbOrTx,
  args: { companyId: string; creatorKeyId: string; name: string } & KeyLimits,
): Promise<{ key: ApiKey; secret: string }> {
  // The row, not the cached auth record: the creator's expiry is not part of AuthContext.
  const creator = await getKeyInCompany(db, { companyId: args.companyId, keyId: args.creatorKeyId });
  const limits = boundByCreator(creator, args);
  return createKey(db, { companyId: creator.companyId, name: args.name, ...limits });
}
