import "server-only";
import { RateLimiterRedis, type IRateLimiterOptions, type RateLimiterAbstract } from "rate-limiter-flexible";
import { relaxedSql } from "@/db/client";
import { RateLimiterPostgresJs } from "./postgres-store";
import { redisCircuit } from "./redis-circuit";

/**
 * A limiter on the rate limits' shared store, for low-volume counters (the panel's sign-in
 * throttle): Redis when REDIS_URL is set, on the circuit's client, with the PostgreSQL store as
 * rate-limiter-flexible's `insuranceLimiter`, which takes any call Redis fails (at once while the
 * connection is down, after the 250 ms command timeout while it is silent). Unlike the API limiter
 * it does not skip Redis while the circuit is open: a sign-in can afford the timeout. Counts made
 * in PostgreSQL during an outage are not copied back to Redis.
 */
export function storeLimiter(opts: IRateLimiterOptions): RateLimiterAbstract {
  const postgres = new RateLimiterPostgresJs({ ...opts, storeClient: relaxedSql });
  const circuit = redisCircuit();
  return circuit
    ? new RateLimiterRedis({ ...opts, storeClient: circuit.client, insuranceLimiter: postgres })
    : postgres;
}
