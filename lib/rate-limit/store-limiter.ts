import "server-only";
import { RateLimiterRedis, type IRateLimiterOptions, type RateLimiterAbstract } from "rate-limiter-flexible";
import { relaxedSql } from "@/db/client";
import { RateLimiterPostgresJs } from "./postgres-store";
import { redisCircuit } from "./redis-circuit";

/**
 * A limiter for low-volume counters (sign-in throttle): Redis with the PostgreSQL store as
 * `insuranceLimiter`. Unlike the API limiter it tries Redis even while the circuit is open, as a
 * sign-in can afford the timeout.
 */
export function storeLimiter(opts: IRateLimiterOptions): RateLimiterAbstract {
  const postgres = new RateLimiterPostgresJs({ ...opts, storeClient: relaxedSql });
  const circuit = redisCircuit();
  return circuit
    ? new RateLimiterRedis({ ...opts, storeClient: circuit.client, insuranceLimiter: postgres })
    : postgres;
}
