import "server-only";
import type { AuthContext } from "@/lib/auth/auth-context";
import { AppError } from "@/lib/errors";
import { consumeRateLimit, rateLimitHeaders } from "@/lib/rate-limit/limiter";

/**
 * Counts the call against its key's per-minute budget (a JWT spends its parent key's) and returns
 * the x-ratelimit-* headers. @throws rate_limited (429) with Retry-After.
 */
export async function enforceRateLimit(auth: AuthContext): Promise<Record<string, string> | undefined> {
  if (!auth.keyId || !auth.rateLimitPerMinute) return undefined;
  const decision = await consumeRateLimit(`key:${auth.keyId}`, auth.rateLimitPerMinute);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    throw new AppError("rate_limited", `Rate limit reached: ${decision.limit} requests per minute for this key`, {
      wireCode: "rate_limit_exceeded",
      headers: { ...headers, "retry-after": String(Math.max(1, Math.ceil(decision.resetMs / 1000))) },
    });
  }
  return headers;
}
