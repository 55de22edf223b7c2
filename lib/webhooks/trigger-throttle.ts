import "server-only";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { AppError } from "@/lib/errors";
import { formatReset } from "@/lib/rate-limit/limiter";
import { storeLimiter } from "@/lib/rate-limit/store-limiter";

/**
 * Refused trigger URLs allowed per address per window, then 429 before any lookup. Valid deliveries
 * are not counted, so a sender is slowed only by its own address's failures.
 * @internal
 */
export const MAX_INVALID_TRIGGERS_PER_ADDRESS = 30;
/** @internal */
export const INVALID_TRIGGER_WINDOW_S = 60;

/** The client address when the server does not report one (`next dev`): all such attempts share one budget. */
const UNKNOWN_ADDRESS = "unknown";
/** Blocked addresses remembered by this process; a flood of addresses evicts the oldest. */
const MAX_BLOCKED = 100_000;

/** Address → when its block ends (epoch ms). Kept here so a blocked address costs no store call. */
const blocked = new Map<string, number>();
let limiter: RateLimiterAbstract | undefined;

/** Counts live in the rate limits' shared store (Redis, or PostgreSQL), so every process sees them. */
const failures = () =>
  (limiter ??= storeLimiter({
    keyPrefix: "trigger-invalid",
    points: MAX_INVALID_TRIGGERS_PER_ADDRESS,
    duration: INVALID_TRIGGER_WINDOW_S,
  }));

function throttled(untilMs: number): AppError {
  const waitMs = Math.max(0, untilMs - Date.now());
  return new AppError(
    "rate_limited",
    `Too many invalid webhook URLs from this address; retry in ${formatReset(waitMs)}`,
    {
      wireCode: "rate_limit_exceeded",
      headers: {
        "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))),
        "x-ratelimit-limit-requests": String(MAX_INVALID_TRIGGERS_PER_ADDRESS),
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": formatReset(waitMs),
      },
    },
  );
}

function block(address: string, res: RateLimiterRes): void {
  if (blocked.size >= MAX_BLOCKED) blocked.delete(blocked.keys().next().value!);
  blocked.set(address, Date.now() + res.msBeforeNext);
}

/** Counts one refusal; the one that spends the budget (or finds it spent by another process) blocks the address here. */
async function countFailure(address: string): Promise<void> {
  try {
    const res = await failures().consume(address, 1);
    if (res.remainingPoints <= 0) block(address, res);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    block(address, rejection);
  }
}

/**
 * Runs `authenticate` for an address that is not throttled and counts its refused attempts (403s).
 * @throws rate_limited (429, Retry-After) for a throttled address, before any lookup.
 */
export async function throttleInvalidTriggers<T>(
  clientAddress: string | null,
  authenticate: () => Promise<T>,
): Promise<T> {
  const address = clientAddress ?? UNKNOWN_ADDRESS;
  const until = blocked.get(address);
  if (until !== undefined) {
    if (until > Date.now()) throw throttled(until);
    blocked.delete(address);
  }
  try {
    return await authenticate();
  } catch (err) {
    if (err instanceof AppError && err.code === "forbidden") await countFailure(address);
    throw err;
  }
}
