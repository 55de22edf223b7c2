import "server-only";
import { sql } from "@/db/sql";
import { tools, type Tool } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { assertToolCode, findActiveToolByName } from "./internal";
import type { CreateToolInput } from "./schemas";

/**
 * Idempotent by name (SPEC): an active tool of that name comes back unchanged (`created: false`).
 * Concurrent identical calls create one row: the insert yields on the active-name index and the
 * loser reads the winner's.
 * @throws 400 naming `python_code` when the code does not define the function; 503 when the sandbox
 * cannot check it.
 */
export async function createTool(
  db: DbOrTx,
  args: { companyId: string; input: CreateToolInput },
): Promise<{ tool: Tool; created: boolean }> {
  const { companyId, input } = args;
  const existing = await findActiveToolByName(db, companyId, input.name);
  if (existing) return { tool: existing, created: false };
  await assertToolCode({ companyId, name: input.name, code: input.python_code });
  // A few rounds at most: the row we collided with may be deactivated before we read it, which
  // frees the name again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const [row] = await db
      .insert(tools)
      .values({
        id: newId("tool"),
        companyId,
        name: input.name,
        description: input.description,
        jsonSchema: input.json_schema,
        pythonCode: input.python_code,
      })
      .onConflictDoNothing({ target: [tools.companyId, tools.name], where: sql`is_active AND deleted_at IS NULL` })
      .returning();
    if (row) return { tool: row, created: true };
    const winner = await findActiveToolByName(db, companyId, input.name);
    if (winner) return { tool: winner, created: false };
  }
  throw new AppError("conflict", `The tool '${input.name}' changed while it was being created; retry`, {
    wireCode: "tool_name_contended",
    param: "name",
  });
}
