import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { tools, type Tool } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { isUniqueViolation } from "@/db/pg-errors";
import { AppError } from "@/lib/errors";
import { checkToolCode } from "@/lib/sandbox";

const ACTIVE_NAME_INDEX = "tools_active_name_per_company";

const toolNotFound = (id: string) =>
  new AppError("not_found", `No tool found with id '${id}'`, { wireCode: "tool_not_found" });

/** The conditions that make a tool hold its name and be offered to runs. */
export const activeTool = and(eq(tools.isActive, true), isNull(tools.deletedAt));

/**
 * Active, deactivated or soft-deleted (deleted tools stay readable by id).
 * @throws not_found when it does not exist or belongs to another company (the same answer).
 */
export async function getToolInCompany(db: DbOrTx, args: { companyId: string; toolId: string }): Promise<Tool> {
  const [row] = await db
    .select()
    .from(tools)
    .where(and(eq(tools.id, args.toolId), eq(tools.companyId, args.companyId)))
    .limit(1);
  if (!row) throw toolNotFound(args.toolId);
  return row;
}

/** The company's active tool of that name, or null. */
export async function findActiveToolByName(db: DbOrTx, companyId: string, name: string): Promise<Tool | null> {
  const [row] = await db
    .select()
    .from(tools)
    .where(and(eq(tools.companyId, companyId), eq(tools.name, name), activeTool))
    .limit(1);
  return row ?? null;
}

/**
 * `code` must define a function called `name`, checked in the sandbox, never by regex (decorators,
 * lambdas and conditional definitions count, comments do not).
 * @throws 400 naming `python_code`; 503 when the sandbox cannot run.
 */
// Checks in flight by company, name and code: concurrent identical POSTs share one sandbox check.
const checking = new Map<string, ReturnType<typeof checkToolCode>>();

export async function assertToolCode(args: { companyId: string; name: string; code: string }): Promise<void> {
  const key = `${args.companyId}\0${args.name}\0${args.code}`;
  let pending = checking.get(key);
  if (!pending) {
    pending = checkToolCode(args).finally(() => checking.delete(key));
    checking.set(key, pending);
  }
  const check = await pending;
  if (!check.ok)
    throw new AppError("invalid_request", `python_code: ${check.error}`, {
      param: "python_code",
      wireCode: "invalid_python_code",
    });
}

/** The active-name index refused a write: another active tool of the company has that name. */
export function nameTaken(err: unknown, name: string, param: "name" | "is_active"): unknown {
  if (!isUniqueViolation(err, ACTIVE_NAME_INDEX)) return err;
  return new AppError("conflict", `An active tool named '${name}' already exists`, {
    wireCode: "tool_name_taken",
    param,
    cause: err,
  });
}
