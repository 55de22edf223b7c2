import "server-only";
import { createHash } from "node:crypto";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { env } from "@/lib/env";
import { storeLimiter } from "@/lib/rate-limit/store-limiter";

/** Failed sign-ins allowed per email, and per client address, in one LOGIN_THROTTLE_WINDOW_S window. */
export const MAX_FAILURES_PER_EMAIL = 10;
export const MAX_FAILURES_PER_ADDRESS = 30;

/** The client address when the server does not report one (`next dev`): all such attempts share one budget. */
const UNKNOWN_ADDRESS = "unknown";

let limiters: { email: RateLimiterAbstract; address: RateLimiterAbstract } | undefined;

/**
 * The counters live in the store the API's rate limits use (Redis when REDIS_URL is set, with
 * PostgreSQL taking over while Redis is away; else PostgreSQL), so every server process counts the
 * same attempts. Fixed windows from the first attempt; the keys carry a hash of the email, never
 * the email itself.
 */
function throttleLimiters() {
  if (limiters) return limiters;
  const make = (keyPrefix: string, points: number): RateLimiterAbstract =>
    storeLimiter({ keyPrefix, points, duration: env.LOGIN_THROTTLE_WINDOW_S });
  return (limiters = { email: make("login-email", MAX_FAILURES_PER_EMAIL), address: make("login-ip", MAX_FAILURES_PER_ADDRESS) });
}

const emailKey = (email: string) => createHash("sha256").update(email.trim().toLowerCase()).digest("base64url");

export interface LoginAttempt {
  email: string;
  /** The client's address key (lib/http/client-ip.ts), null when unknown. */
  address: string | null;
}

export type Admission = { admitted: true } | { admitted: false; retryAfterS: number };

/**
 * Counts one attempt against the email's and the address's budgets BEFORE the password is
 * checked, so concurrent attempts cannot all slip in under the limit and a refused attempt costs
 * no bcrypt. An attempt refused by one budget is given back to the other, so an address that is
 * throttled cannot keep draining an email's budget (and the reverse).
 * Store errors propagate: the sign-in fails rather than going unthrottled.
 */
export async function admitLoginAttempt(attempt: LoginAttempt): Promise<Admission> {
  const { email, address } = throttleLimiters();
  const keys = { email: emailKey(attempt.email), address: attempt.address ?? UNKNOWN_ADDRESS };
  const settle = async (limiter: RateLimiterAbstract, key: string) => {
    try {
      await limiter.consume(key, 1);
      return null;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return rejection;
      throw rejection;
    }
  };
  const [byEmail, byAddress] = await Promise.all([settle(email, keys.email), settle(address, keys.address)]);
  if (!byEmail && !byAddress) return { admitted: true };
  if (!byEmail) await email.reward(keys.email, 1);
  if (!byAddress) await address.reward(keys.address, 1);
  const waitMs = Math.max(byEmail?.msBeforeNext ?? 0, byAddress?.msBeforeNext ?? 0);
  return { admitted: false, retryAfterS: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/**
 * After a successful sign-in: the email's failures are forgiven, and the attempt itself is given
 * back to the address (its budget counts failures only, so many users behind one NAT can sign in).
 */
export async function recordLoginSuccess(attempt: LoginAttempt): Promise<void> {
  const { email, address } = throttleLimiters();
  await Promise.all([email.delete(emailKey(attempt.email)), address.reward(attempt.address ?? UNKNOWN_ADDRESS, 1)]);
}
