import "server-only";
import Redis from "ioredis";
import { RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { relaxedSql } from "@/db/client";
import { env } from "@/lib/env";
import { chunkFor } from "./grant-policy";
import { RateLimiterPostgresJs } from "./postgres-store";

export { chunkFor, GRANT_MIN_LIMIT } from "./grant-policy";

export const RATE_WINDOW_S = 60;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window resets. */
  resetMs: number;
}

let redis: Redis | undefined;
const limiters = new Map<string, RateLimiterAbstract>();

/**
 * One fixed-window limiter per distinct per-minute limit, all sharing one store so every server
 * process counts against the same budget: Redis when REDIS_URL is set, else PostgreSQL. Never a
 * per-process memory counter (grants only hand out calls the store already counted). A limiter is
 * a few small objects on the shared client with no timer of its own (the PostgreSQL table has one
 * sweep per process), so keys with many distinct limits cost no more than memory.
 */
function limiterFor(points: number, granted: boolean): RateLimiterAbstract {
  const id = `${points}:${granted ? "g" : "1"}`;
  let limiter = limiters.get(id);
  if (limiter) return limiter;
  const common = {
    points,
    duration: RATE_WINDOW_S,
    keyPrefix: "rl",
    // Once a key is over its limit, this process refuses it from memory until the window ends,
    // sparing the store the flood; the count itself always lives in the shared store. Not for
    // grants: their partial last grant is computed from what the store counted on that very call.
    ...(granted ? {} : { inMemoryBlockOnConsumed: points + 1 }),
  };
  if (env.REDIS_URL) {
    redis ??= new Redis(env.REDIS_URL, { enableOfflineQueue: true, maxRetriesPerRequest: 2, lazyConnect: false });
    limiter = new RateLimiterRedis({ ...common, storeClient: redis });
  } else {
    limiter = new RateLimiterPostgresJs({ ...common, storeClient: relaxedSql });
  }
  limiters.set(id, limiter);
  return limiter;
}

interface Grant {
  /** Calls of the grant not yet admitted. */
  left: number;
  /** What the store had counted for the window when the grant was taken (the grant included). */
  counted: number;
  /** Local clock time at which the store's window ends. */
  endsAt: number;
}
const grants = new Map<string, Grant>();
const fetching = new Map<string, Promise<unknown>>();
let pruner: NodeJS.Timeout | undefined;

/** Forgets grants of ended windows, so the map holds only keys active in the last minute. */
function startPruner(): void {
  if (pruner) return;
  pruner = setInterval(() => {
    const now = Date.now();
    for (const [key, grant] of grants) if (grant.endsAt <= now) grants.delete(key);
    if (grants.size === 0 && pruner) {
      clearInterval(pruner);
      pruner = undefined;
    }
  }, RATE_WINDOW_S * 1000);
  pruner.unref();
}

async function takeGrant(subject: string, perMinute: number, chunk: number): Promise<void> {
  const key = `${subject}:${perMinute}`;
  const now = Date.now();
  let res: RateLimiterRes;
  try {
    res = await limiterFor(perMinute, true).consume(subject, chunk);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    res = rejection;
  }
  // The store added `chunk` to the window's count; the calls of it that fit under the limit are ours.
  const before = res.consumedPoints - chunk;
  grants.set(key, { left: Math.max(0, Math.min(chunk, perMinute - before)), counted: res.consumedPoints, endsAt: now + res.msBeforeNext });
  startPruner();
}

/** Consumes one request of `subject`'s per-minute budget. Store errors propagate (fail closed → 500). */
export async function consumeRateLimit(subject: string, perMinute: number): Promise<RateDecision> {
  const chunk = chunkFor(perMinute);
  if (chunk === 1) {
    try {
      const res = await limiterFor(perMinute, false).consume(subject, 1);
      return { allowed: true, limit: perMinute, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return { allowed: false, limit: perMinute, remaining: 0, resetMs: rejection.msBeforeNext };
      }
      throw rejection;
    }
  }
  const key = `${subject}:${perMinute}`;
  for (let fetched = false; ; ) {
    const now = Date.now();
    const grant = grants.get(key);
    if (grant && grant.endsAt > now) {
      if (grant.left > 0) {
        grant.left--;
        // Calls not yet admitted anywhere, as far as this process knows: the limit minus what the
        // store counted, plus what is left of our own grant.
        const remaining = Math.max(0, perMinute - grant.counted) + grant.left;
        return { allowed: true, limit: perMinute, remaining, resetMs: grant.endsAt - now };
      }
      // Nothing more this window once the store has counted the whole limit, or a fresh grant came back empty.
      if (fetched || grant.counted >= perMinute) return { allowed: false, limit: perMinute, remaining: 0, resetMs: grant.endsAt - now };
    }
    const pending = fetching.get(key);
    if (pending) {
      await pending;
      continue;
    }
    const p = takeGrant(subject, perMinute, chunk).finally(() => fetching.delete(key));
    fetching.set(key, p);
    await p;
    fetched = true;
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
