import type { Tool } from "@/db/schema";
import { toUnix } from "@/lib/time";

/** CONTRACT 5.6: SPEC's fields + `{id, object, created_at, updated_at}`. */
export function toPublicTool(t: Tool) {
  return {
    id: t.id,
    object: "tool" as const,
    name: t.name,
    description: t.description,
    json_schema: t.jsonSchema,
    python_code: t.pythonCode,
    is_active: t.isActive,
    created_at: toUnix(t.createdAt),
    updated_at: toUnix(t.updatedAt),
  };
}
export type PublicTool = ReturnType<typeof toPublicTool>;
