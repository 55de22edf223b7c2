import "server-only";
import { companies, type Company } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId } from "@/lib/ids";

/** New companies start at 0 O₮ (CONTRACT 5.8); credits arrive through grantCredits. */
export async function createCompany(db: DbOrTx, args: { name: string }): Promise<Company> {
  const [row] = await db
    .insert(companies)
    .values({ id: newId("company"), name: args.name })
    .returning();
  return row!;
}
