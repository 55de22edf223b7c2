import type { Scope } from "@/db/enums";
import type { ApiKey } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from "./schemas";

export interface KeyLimits {
  scopes: Scope[];
  rateLimitPerMinute?: number;
  /** `undefined` or `null`: as long as the creator allows (its expiry, or none if it has none). */
  expiresAt?: Date | null;
}

const exceeds = (param: string, message: string) =>
  new AppError("invalid_request", `${param}: ${message}`, { param, wireCode: "exceeds_creator_key" });

/**
 * A key made by a key (CONTRACT 5.5) never gets more scopes, rate limit or expiry than its creator,
 * so a leaked key hands out only what it holds; defaults are capped the same way.
 * @throws invalid_request (400) naming the field that asks for more than the creator holds.
 */
export function boundByCreator(
  creator: Pick<ApiKey, "scopes" | "rateLimitPerMinute" | "expiresAt">,
  wanted: KeyLimits,
): Required<KeyLimits> {
  const missing = wanted.scopes.filter((s) => !creator.scopes.includes(s));
  if (missing.length > 0)
    throw exceeds("scopes", `the creating key does not hold ${missing.map((s) => `'${s}'`).join(", ")}`);

  const rpm = wanted.rateLimitPerMinute ?? Math.min(DEFAULT_RATE_LIMIT_PER_MINUTE, creator.rateLimitPerMinute);
  if (rpm > creator.rateLimitPerMinute) {
    throw exceeds("rate_limit_per_minute", `must be at most the creating key's ${creator.rateLimitPerMinute}`);
  }

  const expiresAt = wanted.expiresAt ?? creator.expiresAt;
  if (creator.expiresAt && expiresAt && expiresAt.getTime() > creator.expiresAt.getTime()) {
    throw exceeds("expires_at", `must not be later than the creating key's expiry, ${creator.expiresAt.toISOString()}`);
  }
  return { scopes: wanted.scopes, rateLimitPerMinute: rpm, expiresAt };
}
