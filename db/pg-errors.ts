/** SQLSTATE unique_violation. */
const UNIQUE_VIOLATION = "23505";

/**
 * Whether `err` (or an error it wraps: drizzle wraps postgres.js's) is a unique violation, of the
 * named constraint or index when one is given.
 */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const pg = e as { code?: string; constraint_name?: string };
    if (pg.code === UNIQUE_VIOLATION) return constraint === undefined || pg.constraint_name === constraint;
  }
  return false;
}
