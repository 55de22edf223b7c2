/** Liveness probe: no auth, database or rate limit (also the bench's bare-handler baseline for /v1/me). */
export const GET = async () => Response.json({ ok: true });
