import "server-only";
import type { ApiKey } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { CREDENTIAL, type AuthContext } from "@/lib/auth/auth-context";
import { AppError } from "@/lib/errors";
import { boundByCreator, type KeyLimits } from "./bound-by-creator";
import { createKey } from "./create-key";
import { getKeyInCompany } from "./internal";

/**
 * Minting keys needs a long-lived key (CONTRACT 4): a short-lived token sits in a browser and must
 * not turn into a permanent credential.
 * @throws forbidden (403) for a JWT (or anything that is not an SDK key).
 */
export function requireKeyCredential(auth: AuthContext): string {
  if (auth.credential !== CREDENTIAL.key || !auth.keyId) {
    throw new AppError("forbidden", "Creating an SDK key needs a long-lived SDK key; a token cannot create keys", {
      wireCode: "sdk_key_required",
    });
  }
  return auth.keyId;
}

/**
 * `POST /v1/sdk/keys`: a key creates a key bounded by itself (boundByCreator). The panel and CLI
 * call createKey.
 * @throws forbidden for a JWT; invalid_request naming the field that exceeds the creator.
 */
export async function createChildKey(
  db: DbOrTx,
  args: { creator: AuthContext; name: string } & KeyLimits,
): Promise<{ key: ApiKey; secret: string }> {
  const creatorKeyId = requireKeyCredential(args.creator);
  // The row, not the cached auth record: the creator's expiry is not part of AuthContext.
  const creator = await getKeyInCompany(db, { companyId: args.creator.companyId, keyId: creatorKeyId });
  const limits = boundByCreator(creator, args);
  return createKey(db, { companyId: creator.companyId, name: args.name, ...limits });
}
