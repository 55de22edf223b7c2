/**
 * Keys with at least this per-minute limit take calls from the shared store in grants (limit / 64,
 * at most 100), counted before any call is admitted, so processes together never exceed the limit
 * and a busy key costs one statement per grant. Smaller limits go call by call and stay exact
 * across processes.
 * @internal
 */
export const GRANT_MIN_LIMIT = 640;
export const chunkFor = (perMinute: number) =>
  perMinute >= GRANT_MIN_LIMIT ? Math.min(100, Math.floor(perMinute / 64)) : 1;
