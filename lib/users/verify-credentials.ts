import "server-only";
import { eq } from "drizzle-orm";
import { sql } from "@/db/sql";
import { users, type User } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { comparePassword } from "./password-hash";

// A real hash of a random string: comparing against it keeps unknown emails as slow as wrong passwords.
const DUMMY_HASH = "$2b$10$CwTycUXWue0Thq9StjUM0uJ8.Yq3l5PrG0v3yPq5J3b5Yw0m3pQ6a";

/** Returns the user when email and password match, else null (no hint which one was wrong). */
export async function verifyCredentials(db: DbOrTx, args: { email: string; password: string }): Promise<User | null> {
  const [user] = await db
    .select()
    .from(users)
    .where(eq(sql`lower(${users.email})`, args.email.trim().toLowerCase()))
    .limit(1);
  const ok = await comparePassword(args.password, user?.passwordHash ?? DUMMY_HASH);
  return user && ok ? user : null;
}
