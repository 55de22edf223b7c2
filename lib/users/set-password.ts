import "server-only";
import { eq } from "drizzle-orm";
import { sql } from "@/db/sql";
import { users, type User } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { BCRYPT_COST } from "./create-user";
import { hashPassword } from "./password-hash";

/**
 * Replaces a user's password. The new `passwordChangedAt` is part of the sign-in throttle's keys, so
 * the email's failure counts start afresh in every server process at once (the lockout is lifted).
 * @throws AppError not_found when no user has that email.
 */
export async function setPassword(db: DbOrTx, args: { email: string; password: string }): Promise<User> {
  const passwordHash = await hashPassword(args.password, BCRYPT_COST);
  const [row] = await db
    .update(users)
    // clock_timestamp(): two resets in one transaction still differ.
    .set({ passwordHash, passwordChangedAt: sql`clock_timestamp()` })
    .where(eq(sql`lower(${users.email})`, args.email.trim().toLowerCase()))
    .returning();
  if (!row) throw new AppError("not_found", `No panel user has the email '${args.email}'`, { param: "email" });
  return row;
}
