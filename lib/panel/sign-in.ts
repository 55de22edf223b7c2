import "server-only";
import type { User } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { findPasswordChangedAt, verifyCredentials } from "@/lib/users";
import { admitLoginAttempt, recordLoginSuccess } from "./login-throttle";

/**
 * Counts the attempt in the throttle first (keyed by when the password was last set), then checks the password off the main thread. Null for
 * a wrong email or password (no hint which).
 * @throws AppError rate_limited (with Retry-After) when a budget is spent; no bcrypt runs then.
 */
export async function signInWithPassword(
  db: DbOrTx,
  args: { email: string; password: string; address: string | null },
): Promise<User | null> {
  const passwordChangedAt = await findPasswordChangedAt(db, { email: args.email });
  const attempt = { email: args.email, address: args.address, passwordChangedAt };
  const admission = await admitLoginAttempt(attempt);
  if (!admission.admitted) {
    throw new AppError("rate_limited", "Too many failed sign-in attempts", {
      headers: { "retry-after": String(admission.retryAfterS) },
    });
  }
  const user = await verifyCredentials(db, args);
  if (user) await recordLoginSuccess(attempt);
  return user;
}
