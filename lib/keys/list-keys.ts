import "server-only";
import { eq } from "drizzle-orm";
import { apiKeys, type ApiKey } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { cursorPage, type Page, type PageQuery } from "@/lib/pagination";

export async function listKeys(db: DbOrTx, args: { companyId: string; page: PageQuery }): Promise<Page<ApiKey>> {
  return cursorPage(db, {
    table: apiKeys,
    idColumn: apiKeys.id,
    createdColumn: apiKeys.createdAt,
    where: eq(apiKeys.companyId, args.companyId),
    page: args.page,
  });
}
