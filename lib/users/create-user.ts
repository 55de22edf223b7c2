import "server-only";
import { users, type User } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId } from "@/lib/ids";
import { hashPassword } from "./password-hash";

export const BCRYPT_COST = 10;

/** @throws the database's unique violation when the email is taken (case-insensitive). */
export async function createUser(
  db: DbOrTx,
  args: { companyId: string; email: string; password: string },
): Promise<User> {
  const passwordHash = await hashPassword(args.password, BCRYPT_COST);
  const [row] = await db
    .insert(users)
    .values({ id: newId("user"), companyId: args.companyId, email: args.email.trim().toLowerCase(), passwordHash })
    .returning();
  return row!;
}
