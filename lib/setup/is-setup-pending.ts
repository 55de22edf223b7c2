import "server-only";
import { users } from "@/db/schema";
import type { DbOrTx } from "@/db/types";

/** Setup is pending while the database has no panel user at all. */
export async function isSetupPending(db: DbOrTx): Promise<boolean> {
  const [any] = await db.select({ id: users.id }).from(users).limit(1);
  return !any;
}
