/**
 * Liveness probe with no auth, no database and no rate limit. The benchmark also uses it as the
 * bare route handler that /v1/me is compared against.
 */
export const GET = async () => Response.json({ ok: true });
