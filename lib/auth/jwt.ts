import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { SCOPES, type Scope } from "@/db/enums";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { authSecret } from "./secret";

/** One algorithm, one issuer, one audience: anything else (alg "none", RS256 confusion…) is refused. */
const ALG = "HS256";
const ISSUER = "cockpit-gateway";
const AUDIENCE = "cockpit-sdk";
/** CONTRACT 5.2: 300 s; SDK_TOKEN_TTL_S in the environment (tests shorten it). */
export const SDK_TOKEN_TTL_S = env.SDK_TOKEN_TTL_S;
/** Allowed clock skew on a token's `iat`; more would let a token outlive SDK_TOKEN_TTL_S (`exp` derives from `iat`). */
const CLOCK_SKEW_S = 5;

let keyBytes: Uint8Array | undefined;
// Derived per purpose so the panel session secret and SDK tokens never share key material.
const signingKey = () => (keyBytes ??= new TextEncoder().encode(`sdk-jwt:${authSecret()}`));

export interface SdkTokenClaims {
  keyId: string;
  companyId: string;
  scopes: Scope[];
}

export async function mintSdkToken(claims: SdkTokenClaims, nowS = Math.floor(Date.now() / 1000)) {
  const expiresAt = nowS + SDK_TOKEN_TTL_S;
  const token = await new SignJWT({ cid: claims.companyId, scp: claims.scopes })
    .setProtectedHeader({ alg: ALG, typ: "JWT" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.keyId)
    .setIssuedAt(nowS)
    .setExpirationTime(expiresAt)
    .sign(signingKey());
  return { token, expiresAt };
}

const invalid = (message: string) => new AppError("unauthenticated", message, { wireCode: "invalid_token" });
const expired = () => new AppError("unauthenticated", "Token has expired", { wireCode: "token_expired" });

/** @throws AppError unauthenticated for any bad, expired or foreign token. */
export async function verifySdkToken(token: string): Promise<SdkTokenClaims> {
  try {
    const { payload } = await jwtVerify(token, signingKey(), {
      algorithms: [ALG],
      issuer: ISSUER,
      audience: AUDIENCE,
      requiredClaims: ["exp", "iat", "sub"],
      // An `iat` older than the lifetime or more than the skew in the future is refused.
      maxTokenAge: SDK_TOKEN_TTL_S,
      clockTolerance: CLOCK_SKEW_S,
    });
    // The tolerance is for `iat` only: a token one second past `exp` is expired.
    if (payload.exp! <= Math.floor(Date.now() / 1000)) throw expired();
    const scopes = payload.scp;
    if (
      typeof payload.sub !== "string" ||
      typeof payload.cid !== "string" ||
      !Array.isArray(scopes) ||
      !scopes.every((s): s is Scope => (SCOPES as readonly unknown[]).includes(s))
    ) {
      throw invalid("Token claims are malformed");
    }
    if (payload.exp! - payload.iat! > SDK_TOKEN_TTL_S) throw invalid("Token lifetime exceeds the allowed maximum");
    return { keyId: payload.sub, companyId: payload.cid, scopes };
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (err instanceof joseErrors.JWTExpired) throw expired();
    if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === "iat" && err.reason === "check_failed")
      throw invalid("Token is issued in the future");
    throw invalid("Invalid token");
  }
}

export function looksLikeJwt(value: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);
}
