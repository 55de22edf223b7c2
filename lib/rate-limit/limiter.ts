import "server-only";
import Redis from "ioredis";
import { RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { relaxedSql } from "@/db/client";
import { env } from "@/lib/env";
import { RateLimiterPostgresJs } from "./postgres-store";

export const RATE_WINDOW_S = 60;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window resets. */
  resetMs: number;
}

let redis: Redis | undefined;
const limiters = new Map<number, RateLimiterAbstract>();

/**
 * One fixed-window limiter per distinct per-minute limit, all sharing one store so every server
 * process counts against the same budget: Redis when REDIS_URL is set, else PostgreSQL. Never a
 * per-process memory counter.
 */
function limiterFor(points: number): RateLimiterAbstract {
  let limiter = limiters.get(points);
  if (limiter) return limiter;
  const common = {
    points,
    duration: RATE_WINDOW_S,
    keyPrefix: "rl",
    // Once a key is over its limit, this process refuses it from memory until the window ends,
    // sparing the store the flood; the count itself always lives in the shared store.
    inMemoryBlockOnConsumed: points + 1,
  };
  if (env.REDIS_URL) {
    redis ??= new Redis(env.REDIS_URL, { enableOfflineQueue: true, maxRetriesPerRequest: 2, lazyConnect: false });
    limiter = new RateLimiterRedis({ ...common, storeClient: redis });
  } else {
    limiter = new RateLimiterPostgresJs({ ...common, storeClient: relaxedSql });
  }
  limiters.set(points, limiter);
  return limiter;
}

/** Consumes one request of `subject`'s per-minute budget. Store errors propagate (fail closed → 500). */
export async function consumeRateLimit(subject: string, perMinute: number): Promise<RateDecision> {
  try {
    const res = await limiterFor(perMinute).consume(subject, 1);
    return { allowed: true, limit: perMinute, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      return { allowed: false, limit: perMinute, remaining: 0, resetMs: rejection.msBeforeNext };
    }
    throw rejection;
  }
}

/** OpenAI-style reset duration: `12s`, `1m3s`. */
export function formatReset(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(s / 60);
  return m > 0 ? `${m}m${s % 60}s` : `${s}s`;
}

export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    "x-ratelimit-limit-requests": String(d.limit),
    "x-ratelimit-remaining-requests": String(d.remaining),
    "x-ratelimit-reset-requests": formatReset(d.resetMs),
  };
}
