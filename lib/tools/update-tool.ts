import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import { sql } from "@/db/sql";
import { announceProfilesChanged } from "@/lib/cache/profiles-changed";
import { tools, type Tool } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { assertToolCode, getToolInCompany, nameTaken } from "./internal";
import type { UpdateToolInput } from "./schemas";

const deletedTool = () =>
  new AppError("conflict", "This tool was deleted and cannot be changed", { wireCode: "tool_deleted" });

/**
 * PATCH: only the given fields change; a new name or code is checked together in the sandbox.
 * @throws not_found (another company's or unknown id); conflict for a deleted tool or a second
 * active tool of one name; 400 naming `python_code`; 503 when the sandbox cannot check the code.
 */
export async function updateTool(
  db: DbOrTx,
  args: { companyId: string; toolId: string; input: UpdateToolInput },
): Promise<Tool> {
  const { companyId, toolId, input } = args;
  // Existence first: another company's id is a 404 whatever the body says.
  const current = await getToolInCompany(db, { companyId, toolId });
  if (current.deletedAt) throw deletedTool();
  const name = input.name ?? current.name;
  const code = input.python_code ?? current.pythonCode;
  if (name !== current.name || code !== current.pythonCode) await assertToolCode({ companyId, name, code });
  const renamed = input.name !== undefined && input.name !== current.name;
  const write = async (tx: DbOrTx) => {
    const [updated] = await tx
      .update(tools)
      .set({
        name: input.name,
        description: input.description,
        jsonSchema: input.json_schema,
        pythonCode: input.python_code,
        isActive: input.is_active,
        updatedAt: new Date(),
      })
      // Not-deleted guard in WHERE: a delete that committed meanwhile wins; nothing is revived.
      // The name and code checked above are only what this write stores when neither moved since.
      .where(and(eq(tools.id, current.id), eq(tools.companyId, companyId), isNull(tools.deletedAt)))
      .returning()
      .catch((err: unknown) => {
        throw nameTaken(err, name, renamed ? "name" : "is_active");
      });
    // Profiles that offer the tool follow its new name (else it would silently stop being offered).
    if (updated && renamed) {
      const moved = (await tx.execute(sql`
        UPDATE profiles SET allowed_tool_names = array_replace(allowed_tool_names, ${current.name}, ${name}), updated_at = now()
        WHERE company_id = ${companyId} AND ${current.name} = ANY(allowed_tool_names)
        RETURNING id`)) as unknown as { id: string }[];
      if (moved.length > 0) await announceProfilesChanged(tx, companyId);
    }
    return updated;
  };
  const row = renamed ? await db.transaction(write) : await write(db);
  if (!row) throw deletedTool();
  return row;
}
