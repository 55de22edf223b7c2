import "server-only";
import { KEY_STATUS } from "@/db/enums";
import { AppError } from "@/lib/errors";
import { findKeyByHash, findKeyById, hashKeySecret, looksLikeKeySecret, markKeyUsed, type KeyRecord } from "@/lib/keys";
import { CREDENTIAL, type AuthContext } from "./auth-context";
import { looksLikeJwt, verifySdkToken } from "./jwt";

const unauthenticated = (message: string, wireCode = "invalid_api_key") =>
  new AppError("unauthenticated", message, { wireCode });

/** @throws unauthenticated when the key is revoked or expired. */
function assertUsable(key: KeyRecord | null, now = Date.now()): KeyRecord {
  if (!key) throw unauthenticated("Incorrect API key provided");
  if (key.status !== KEY_STATUS.active) throw unauthenticated("This API key has been revoked", "revoked_api_key");
  if (key.expiresAtMs !== null && key.expiresAtMs <= now)
    throw unauthenticated("This API key has expired", "expired_api_key");
  return key;
}

function bearerToken(req: Request, keyHeader: string | undefined): string {
  const header = req.headers.get("authorization");
  const keyed = keyHeader ? req.headers.get(keyHeader)?.trim() : undefined;
  if (!header && keyed) return keyed;
  if (!header)
    throw unauthenticated(
      `Missing Authorization header: send 'Authorization: Bearer <API key>'${keyHeader ? ` or '${keyHeader}: <API key>'` : ""}`,
      "missing_api_key",
    );
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!match) throw unauthenticated("Malformed Authorization header: expected 'Bearer <API key>'");
  return match[1]!;
}

/**
 * Resolves an SDK key or JWT into the caller's company and scopes; a JWT dies with its parent key.
 * `keyHeader`: a header that may carry the credential instead of Authorization (`x-api-key`).
 * @throws unauthenticated (401) for every missing, malformed, unknown, revoked or expired
 * credential.
 */
export async function authenticate(req: Request, keyHeader?: string): Promise<AuthContext> {
  const token = bearerToken(req, keyHeader);
  if (looksLikeKeySecret(token)) {
    const key = assertUsable(await findKeyByHash(hashKeySecret(token)));
    markKeyUsed(key.id);
    return {
      companyId: key.companyId,
      scopes: key.scopes,
      credential: CREDENTIAL.key,
      keyId: key.id,
      userId: null,
      rateLimitPerMinute: key.rateLimitPerMinute,
    };
  }
  if (looksLikeJwt(token)) {
    const claims = await verifySdkToken(token);
    const key = assertUsable(await findKeyById(claims.keyId));
    if (key.companyId !== claims.companyId) throw unauthenticated("Invalid token", "invalid_token");
    // A token never carries more than its key holds now.
    const scopes = claims.scopes.filter((s) => key.scopes.includes(s));
    return {
      companyId: key.companyId,
      scopes,
      credential: CREDENTIAL.jwt,
      keyId: key.id,
      userId: null,
      rateLimitPerMinute: key.rateLimitPerMinute,
    };
  }
  throw unauthenticated("Incorrect API key provided");
}
