import "server-only";
import { createHash } from "node:crypto";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { env } from "@/lib/env";
import { storeLimiter } from "@/lib/rate-limit/store-limiter";

/**
 * Failed sign-ins allowed in one LOGIN_THROTTLE_WINDOW_S window: per (email, client address), the
 * lockout a guesser at one address meets; per email from all addresses together, a much higher
 * cap that still stops a distributed guesser, while the owner at another address can sign in;
 * per client address across emails.
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
 * The counters live in the store the API's rate limits use (Redis when REDIS_URL is set, with
 * PostgreSQL taking over while Redis is away; else PostgreSQL), so every server process counts the
 * same attempts. Fixed windows from the first attempt; the keys carry a hash of the email, never
 * the email itself.
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
  /** The client's address key (lib/http/client-ip.ts), null when unknown. */
  address: string | null;
}

export type Admission = { admitted: true } | { admitted: false; retryAfterS: number };

function keysOf(attempt: LoginAttempt): Record<Budget, string> {
  const email = emailKey(attempt.email);
  const address = attempt.address ?? UNKNOWN_ADDRESS;
  return { pair: `${email}:${address}`, email, address };
}

const BUDGETS: Budget[] = ["pair", "email", "address"];

/**
 * Counts one attempt against the (email, address), email and address budgets BEFORE the password
 * is checked, so concurrent attempts cannot all slip in under the limit and a refused attempt
 * costs no bcrypt. An attempt refused by one budget is given back to the others, so a throttled
 * address cannot keep draining an email's budget (and the reverse).
 * Store errors propagate: the sign-in fails rather than going unthrottled.
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
 * After a successful sign-in: this address's failures for the email are forgiven, and the attempt
 * itself is given back to the email's and the address's budgets (they count failures only, so many
 * users behind one NAT can sign in, and the owner signing in does not wipe a distributed guesser's count).
 */
export async function recordLoginSuccess(attempt: LoginAttempt): Promise<void> {
  const all = throttleLimiters();
  const keys = keysOf(attempt);
  await Promise.all([all.pair.delete(keys.pair), all.email.reward(keys.email, 1), all.address.reward(keys.address, 1)]);
}
