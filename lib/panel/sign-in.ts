import "server-only";
import type { User } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { verifyCredentials } from "@/lib/users";
import { admitLoginAttempt, recordLoginSuccess } from "./login-throttle";

/**
 * A panel sign-in: the attempt is counted against the email's and the client address's budgets
 * first (lib/panel/login-throttle.ts), then the password is checked off the main thread.
 * Returns the user, or null for a wrong email or password (no hint which).
 * @throws AppError rate_limited (with Retry-After) when either budget is spent; no bcrypt runs then.
 */
export async function signInWithPassword(
  db: DbOrTx,
  args: { email: string; password: string; address: string | null },
): Promise<User | null> {
  const attempt = { email: args.email, address: args.address };
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
