import { databaseReady } from "@/lib/persistence/db-health";
import { redisState } from "@/lib/rate-limit/limiter";

/**
 * Readiness: whether this process can serve calls now. 200 when PostgreSQL answers (probed, at
 * most 1 s), else 503 with Retry-After. Redis is reported (`up`, `down`, `off` when not
 * configured) but does not decide: while it is away the rate limits count in PostgreSQL.
 * /api/health stays the liveness check (no dependencies).
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
