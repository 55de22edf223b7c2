import "server-only";
import { eq } from "drizzle-orm";
import { companies, type Company } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { notFound } from "@/lib/errors";

/** @throws not_found */
export async function getCompany(db: DbOrTx, args: { companyId: string }): Promise<Company> {
  const [row] = await db.select().from(companies).where(eq(companies.id, args.companyId)).limit(1);
  if (!row) throw notFound("company");
  return row;
}
