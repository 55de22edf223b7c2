/**
 * Keys allowed this many calls a minute or more take their budget from the shared store in
 * grants of CHUNK calls (limit / 64, at most 100): the store counts a grant before any of its
 * calls is admitted, so the calls admitted by all processes together never exceed the limit, and
 * a busy key costs one store statement per grant instead of one per call. Smaller limits go to the
 * store call by call, so they stay exact to the call across processes (a grant's unused calls
 * are not available to other processes until the window ends).
 * @internal
 */
export const GRANT_MIN_LIMIT = 640;
export const chunkFor = (perMinute: number) =>
  perMinute >= GRANT_MIN_LIMIT ? Math.min(100, Math.floor(perMinute / 64)) : 1;
