import "server-only";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { relaxedSql } from "@/db/client";
import { chunkFor } from "./grant-policy";
import { RateLimiterPostgresJs } from "./postgres-store";
import { redisCircuit } from "./redis-circuit";

export { redisState } from "./redis-circuit";

const RATE_WINDOW_S = 60;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window resets. */
  resetMs: number;
}

interface StoreLimiters {
  /** Only with REDIS_URL. */
  redis?: RateLimiterRedis;
  /** The store without REDIS_URL, and the fallback while Redis is away. */
  postgres: RateLimiterPostgresJs;
}
const limiters = new Map<string, StoreLimiters>();

/**
 * Fixed-window limiters per distinct limit, on stores every process shares (Redis, with PostgreSQL
 * while it is away; else PostgreSQL), never a per-process counter. A limiter has no timer of its
 * own, so many limits cost only memory.
 */
function limitersFor(points: number, granted: boolean): StoreLimiters {
  const id = `${points}:${granted ? "g" : "1"}`;
  let pair = limiters.get(id);
  if (pair) return pair;
  const common = {
    points,
    duration: RATE_WINDOW_S,
    keyPrefix: "rl",
    // Over its limit, a key is refused from memory until the window ends, sparing the store; the
    // count stays shared. Not for grants: their partial last grant is computed from the store's
    // count on that call.
    ...(granted ? {} : { inMemoryBlockOnConsumed: points + 1 }),
  };
  const circuit = redisCircuit();
  pair = {
    redis: circuit && new RateLimiterRedis({ ...common, storeClient: circuit.client }),
    postgres: new RateLimiterPostgresJs({ ...common, storeClient: relaxedSql }),
  };
  limiters.set(id, pair);
  return pair;
}

/**
 * Counts in Redis while its circuit is closed, else PostgreSQL, so a Redis outage never fails a
 * call. The stores keep separate counts: around a switch a key may get its limit in each.
 * PostgreSQL errors propagate.
 */
async function consumeInStore(
  points: number,
  granted: boolean,
  subject: string,
  n: number,
): Promise<{ allowed: boolean; res: RateLimiterRes }> {
  const { redis, postgres } = limitersFor(points, granted);
  const circuit = redisCircuit();
  if (redis && circuit && (await circuit.useRedis())) {
    try {
      return await settle(circuit.run(redis.consume(subject, n)));
    } catch (err) {
      circuit.trip(err);
    }
  }
  return settle(postgres.consume(subject, n));
}

/** rate-limiter-flexible rejects with a RateLimiterRes when over the limit, and with an Error when the store fails. */
async function settle(consumed: Promise<RateLimiterRes>): Promise<{ allowed: boolean; res: RateLimiterRes }> {
  try {
    return { allowed: true, res: await consumed };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { allowed: false, res: rejection };
    throw rejection;
  }
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
  const { res } = await consumeInStore(perMinute, true, subject, chunk);
  // The store added `chunk` to the window's count; the calls of it that fit under the limit are ours.
  const before = res.consumedPoints - chunk;
  grants.set(key, {
    left: Math.max(0, Math.min(chunk, perMinute - before)),
    counted: res.consumedPoints,
    endsAt: now + res.msBeforeNext,
  });
  startPruner();
}

/** Consumes one request of `subject`'s per-minute budget; Redis outages fall back to PostgreSQL, whose errors propagate. */
export async function consumeRateLimit(subject: string, perMinute: number): Promise<RateDecision> {
  const chunk = chunkFor(perMinute);
  if (chunk === 1) {
    const { allowed, res } = await consumeInStore(perMinute, false, subject, 1);
    return { allowed, limit: perMinute, remaining: allowed ? res.remainingPoints : 0, resetMs: res.msBeforeNext };
  }
  const key = `${subject}:${perMinute}`;
  for (let fetched = false; ;) {
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
      if (fetched || grant.counted >= perMinute)
        return { allowed: false, limit: perMinute, remaining: 0, resetMs: grant.endsAt - now };
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
