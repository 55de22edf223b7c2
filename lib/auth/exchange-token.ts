import "server-only";
import type { Scope } from "@/db/enums";
import { CREDENTIAL, type AuthContext } from "./auth-context";
import { mintSdkToken, SDK_TOKEN_TTL_S } from "./jwt";
import { requireSubset } from "./scopes";
import { AppError } from "@/lib/errors";

/**
 * Swaps an SDK key for a short-lived JWT (CONTRACT 5.2), optionally with fewer scopes.
 * @throws unauthenticated when the caller is itself a JWT (no token chains); forbidden for a scope
 * the key lacks.
 */
export async function exchangeToken(auth: AuthContext, args: { scopes?: Scope[] }) {
  if (auth.credential !== CREDENTIAL.key || !auth.keyId) {
    throw new AppError("unauthenticated", "A token cannot be exchanged for another token; use an SDK key", {
      wireCode: "invalid_api_key",
    });
  }
  const scopes = args.scopes ?? auth.scopes;
  requireSubset(auth.scopes, scopes);
  const { token, expiresAt } = await mintSdkToken({ keyId: auth.keyId, companyId: auth.companyId, scopes });
  return {
    token,
    token_type: "Bearer" as const,
    expires_in: SDK_TOKEN_TTL_S,
    expires_at: expiresAt,
    scopes,
    company_id: auth.companyId,
  };
}
