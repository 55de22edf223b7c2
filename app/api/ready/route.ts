import { databaseReady } from "@/lib/persistence/db-health";

/**
 * Readiness: whether this process can serve calls now. 200 when PostgreSQL answers (probed, at
 * most 0.7 s), else 503 with Retry-After. /api/health stays the liveness check (no dependencies).
 */
export const dynamic = "force-dynamic";

export async function GET() {
  const database = (await databaseReady()) ? "up" : "down";
  const ok = database === "up";
  return Response.json({ ok, database }, { status: ok ? 200 : 503, headers: ok ? {} : { "retry-after": "1" } });
}
