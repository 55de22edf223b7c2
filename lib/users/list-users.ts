import "server-only";
import { asc, eq } from "drizzle-orm";
import { users, type User } from "@/db/schema";
import type { DbOrTx } from "@/db/types";

/** A company's panel users, oldest first. */
export async function listUsers(db: DbOrTx, args: { companyId: string }): Promise<User[]> {
  return db
    .select()
    .from(users)
    .where(eq(users.companyId, args.companyId))
    .orderBy(asc(users.createdAt), asc(users.id));
}
