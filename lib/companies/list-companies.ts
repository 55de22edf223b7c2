import "server-only";
import { asc } from "drizzle-orm";
import { companies, type Company } from "@/db/schema";
import type { DbOrTx } from "@/db/types";

/** Every company, oldest first: the operator's view (CLI `company list`), never a tenant's. */
export async function listCompanies(db: DbOrTx): Promise<Company[]> {
  return db.select().from(companies).orderBy(asc(companies.createdAt), asc(companies.id));
}
