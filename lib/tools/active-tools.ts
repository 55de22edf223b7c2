import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import { tools, type Tool } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { activeTool, findActiveToolByName } from "./internal";

/** The company's active tools among `names`, in that order, missing names left out; one query. */
export async function activeToolsByName(db: DbOrTx, companyId: string, names: string[]): Promise<Tool[]> {
  const unique = [...new Set(names)];
  if (unique.length === 0) return [];
  const rows = await db
    .select()
    .from(tools)
    .where(and(eq(tools.companyId, companyId), inArray(tools.name, unique), activeTool));
  const byName = new Map(rows.map((r) => [r.name, r]));
  return unique.flatMap((n) => byName.get(n) ?? []);
}

/**
 * The company's active tool of that name (a forced `tool_choice`).
 * @throws 400 naming `param` (default `tool_choice`) when there is none (CONTRACT 6).
 * @internal
 */
export async function getActiveToolByName(
  db: DbOrTx,
  companyId: string,
  name: string,
  param = "tool_choice",
): Promise<Tool> {
  const tool = await findActiveToolByName(db, companyId, name);
  if (!tool)
    throw new AppError("invalid_request", `No active tool named '${name}'`, { param, wireCode: "tool_not_found" });
  return tool;
}

/**
 * Profiles may only name the company's active tools.
 * @throws 400 naming `allowed_tool_names` with the first unknown name.
 */
export async function assertActiveToolNames(db: DbOrTx, companyId: string, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const found = new Set((await activeToolsByName(db, companyId, names)).map((t) => t.name));
  const missing = names.find((n) => !found.has(n));
  if (missing !== undefined) {
    throw new AppError("invalid_request", `allowed_tool_names: no active tool named '${missing}'`, {
      param: "allowed_tool_names",
      wireCode: "tool_not_found",
    });
  }
}
