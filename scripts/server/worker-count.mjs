// @ts-check
/**
 * WEB_CONCURRENCY as a worker count: a whole number from 1 to 64; unset or empty means 1.
 * @param {string | undefined} value
 */
export function workerCount(value) {
  if (value === undefined || value.trim() === "") return 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64)
    throw new Error(`WEB_CONCURRENCY must be a whole number from 1 to 64, got "${value}"`);
  return n;
}
