// The cluster test's timings and bounds, shared by the run (test/cluster/run.ts) and its checks.
/** The grant covers this share of the plan's expected cost: the balance runs out midway. */
export const GRANT_SHARE = 0.5;
export const SHUTDOWN_GRACE_MS = 1_500;
export const REDIS_CUT_MS = 5_000;
/** After Redis returns, calls may still be counted in PostgreSQL until the circuit closes. */
export const REDIS_RECOVERY_MS = 1_000;
export const REVOKE_WITHIN_MS = 1_000;
export const SEARCHABLE_WITHIN_MS = 2_000;
