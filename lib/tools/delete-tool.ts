import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { tools, type Tool } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { getToolInCompany } from "./internal";

/**
 * Soft delete (SPEC 3): readable by id with `is_active: false`; it leaves lists and runs and frees
 * its name.
 * @throws not_found for another company's or an unknown id; conflict when already deleted.
 */
export async function deleteTool(db: DbOrTx, args: { companyId: string; toolId: string }): Promise<Tool> {
  const tool = await getToolInCompany(db, args);
  // Not-deleted guard in WHERE: of two concurrent deletes one updates, the other gets the 409.
  const now = new Date();
  const [row] = await db
    .update(tools)
    .set({ isActive: false, deletedAt: now, updatedAt: now })
    .where(and(eq(tools.id, tool.id), eq(tools.companyId, args.companyId), isNull(tools.deletedAt)))
    .returning();
  if (!row) throw new AppError("conflict", "Tool already deleted", { wireCode: "already_deleted" });
  return row;
}
