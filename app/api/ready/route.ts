import { databaseReady } from "@/lib/persistence/db-health";
import { redisState } from "@/lib/rate-limit/limiter";

/**
 * Readiness: 200 when PostgreSQL answers a bounded probe, else 503 with Retry-After. Redis is
 * reported but does not decide, since rate limits fall back to PostgreSQL. /api/health is the
 * dependency-free liveness check.
 */
export const dynamic = "force-dynamic";

export async function GET() {
  const database = (await databaseReady()) ? "up" : "down";
  const ok = database === "up";
  return Response.json(
    { ok, database, redis: redisState() },
    { status: ok ? 200 : 503, headers: ok ? {} : { "retry-after": "1" } },
  );
}
