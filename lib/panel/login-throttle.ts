import "server-only";
import { createHash } from "node:crypto";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { env } from "@/lib/env";
import { storeLimiter } from "@/lib/rate-limit/store-limiter";

/**
 * Failed sign-ins per LOGIN_THROTTLE_WINDOW_S: per (email, address) for a single guesser; a higher
 * per-email cap for distributed guessers that still lets the owner in; and per address across
 * emails.
 * @internal
 */
export const MAX_FAILURES_PER_EMAIL_AND_ADDRESS = 10;
/** @internal */
export const MAX_FAILURES_PER_EMAIL = 100;
/** @internal */
export const MAX_FAILURES_PER_ADDRESS = 30;

/** The client address when the server does not report one (`next dev`): all such attempts share one budget. */
const UNKNOWN_ADDRESS = "unknown";

type Budget = "pair" | "email" | "address";
let limiters: Record<Budget, RateLimiterAbstract> | undefined;

/**
 * Counters in the rate limits' store (Redis, PostgreSQL while it is away), shared by every process.
 * Fixed windows; keys hold a hash of the email, never the email.
 */
function throttleLimiters(): Record<Budget, RateLimiterAbstract> {
  if (limiters) return limiters;
  const make = (keyPrefix: string, points: number): RateLimiterAbstract =>
    storeLimiter({ keyPrefix, points, duration: env.LOGIN_THROTTLE_WINDOW_S });
  return (limiters = {
    pair: make("login-email-ip", MAX_FAILURES_PER_EMAIL_AND_ADDRESS),
    email: make("login-email", MAX_FAILURES_PER_EMAIL),
    address: make("login-ip", MAX_FAILURES_PER_ADDRESS),
  });
}

const emailKey = (email: string) => createHash("sha256").update(email.trim().toLowerCase()).digest("base64url");

export interface LoginAttempt {
  email: string;
  /**
   * When the email's password was last set (ms), null for an unknown email. Part of the email's
   * keys: a password reset (CLI `user password`) starts its counts afresh, whatever process or store
   * holds them, and so lifts a lockout.
   */
  passwordChangedAt: number | null;
  /** The client's address key (lib/net/client-ip.ts), null when unknown. */
  address: string | null;
}

export type Admission = { admitted: true } | { admitted: false; retryAfterS: number };

function keysOf(attempt: LoginAttempt): Record<Budget, string> {
  const email = `${emailKey(attempt.email)}:${attempt.passwordChangedAt ?? "none"}`;
  const address = attempt.address ?? UNKNOWN_ADDRESS;
  return { pair: `${email}:${address}`, email, address };
}

const BUDGETS: Budget[] = ["pair", "email", "address"];

/**
 * Counts the attempt in all three budgets BEFORE the password check, so concurrent attempts cannot
 * slip under the limit and refusals cost no bcrypt; one budget's refusal is given back to the
 * others. Store errors propagate.
 */
export async function admitLoginAttempt(attempt: LoginAttempt): Promise<Admission> {
  const all = throttleLimiters();
  const keys = keysOf(attempt);
  const settle = async (budget: Budget) => {
    try {
      await all[budget].consume(keys[budget], 1);
      return null;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return rejection;
      throw rejection;
    }
  };
  const verdicts = await Promise.all(BUDGETS.map(settle));
  if (verdicts.every((v) => v === null)) return { admitted: true };
  await Promise.all(BUDGETS.map((b, i) => (verdicts[i] === null ? all[b].reward(keys[b], 1) : null)));
  const waitMs = Math.max(...verdicts.map((v) => v?.msBeforeNext ?? 0));
  return { admitted: false, retryAfterS: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/**
 * On success: this address's failures for the email are forgiven and the attempt given back
 * (budgets count failures, so users behind one NAT sign in, and the owner does not wipe a
 * distributed guesser's count).
 */
export async function recordLoginSuccess(attempt: LoginAttempt): Promise<void> {
  const all = throttleLimiters();
  const keys = keysOf(attempt);
  await Promise.all([all.pair.delete(keys.pair), all.email.reward(keys.email, 1), all.address.reward(keys.address, 1)]);
}
