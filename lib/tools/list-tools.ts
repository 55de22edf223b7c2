import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { tools, type Tool } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { cursorPage, type Page, type PageQuery } from "@/lib/pagination";

/** Active and deactivated tools; soft-deleted ones leave the list but stay readable by id (CONTRACT 4). */
export async function listTools(db: DbOrTx, args: { companyId: string; page: PageQuery }): Promise<Page<Tool>> {
  return cursorPage(db, {
    table: tools,
    idColumn: tools.id,
    createdColumn: tools.createdAt,
    where: and(eq(tools.companyId, args.companyId), isNull(tools.deletedAt)),
    page: args.page,
  });
}
