import "server-only";
import { eq } from "drizzle-orm";
import { users } from "@/db/schema";
import type { DbOrTx } from "@/db/types";

/**
 * The user a panel session names, when the session is still current: the user exists and their
 * password has not been set since the session signed in (a reset ends every earlier session).
 */
export async function findSessionUser(
  db: DbOrTx,
  args: { userId: string; passwordChangedAt: number },
): Promise<{ id: string; companyId: string } | null> {
  const [row] = await db
    .select({ id: users.id, companyId: users.companyId, at: users.passwordChangedAt })
    .from(users)
    .where(eq(users.id, args.userId))
    .limit(1);
  return row && row.at.getTime() === args.passwordChangedAt ? { id: row.id, companyId: row.companyId } : null;
}
