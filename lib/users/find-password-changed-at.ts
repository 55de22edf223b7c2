import "server-only";
import { eq } from "drizzle-orm";
import { sql } from "@/db/sql";
import { users } from "@/db/schema";
import type { DbOrTx } from "@/db/types";

/**
 * When the email's password was last set (ms), or null when no user has it: the sign-in throttle
 * keys its counts by it, so a reset starts them afresh.
 */
export async function findPasswordChangedAt(db: DbOrTx, args: { email: string }): Promise<number | null> {
  const [row] = await db
    .select({ at: users.passwordChangedAt })
    .from(users)
    .where(eq(sql`lower(${users.email})`, args.email.trim().toLowerCase()))
    .limit(1);
  return row ? row.at.getTime() : null;
}
