import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { setupTokens, type User } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { createUser } from "@/lib/users";
import { getValidSetupToken } from "./check-setup-token";
import { isSetupPending } from "./is-setup-pending";
import { takeSetupLock } from "./setup-lock";

/**
 * Uses the token once: creates the first panel user in the token's company and marks the token
 * consumed in one transaction.
 * @throws AppError invalid_request (unknown or expired token), conflict (used, or a user exists).
 */
export async function completeSetup(
  db: DbOrTx,
  args: { token: string; email: string; password: string; now?: Date },
): Promise<User> {
  return db.transaction(async (tx) => {
    await takeSetupLock(tx);
    const token = await getValidSetupToken(tx, args);
    if (!(await isSetupPending(tx))) {
      throw new AppError("conflict", "Setup is already done: sign in at /login.", { param: "token" });
    }
    // consumedAt guard in WHERE: with the lock held this always matches; it keeps the rule visible.
    const [used] = await tx
      .update(setupTokens)
      .set({ consumedAt: args.now ?? new Date() })
      .where(and(eq(setupTokens.id, token.id), isNull(setupTokens.consumedAt)))
      .returning();
    if (!used) throw new AppError("conflict", "This setup link was already used. Sign in at /login.");
    return createUser(tx, { companyId: token.companyId, email: args.email, password: args.password });
  });
}
