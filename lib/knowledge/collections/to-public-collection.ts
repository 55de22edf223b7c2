import { toUnix } from "@/lib/time";
import type { CollectionWithCount } from "./internal";

/** CONTRACT 5.6, plus `is_active` (CONTRACT 4: soft-deleted resources read by id show `is_active: false`). */
export function toPublicCollection(c: CollectionWithCount) {
  return {
    id: c.id,
    object: "knowledge.collection" as const,
    name: c.name,
    description: c.description,
    is_active: c.isActive,
    created_at: toUnix(c.createdAt),
    document_count: c.documentCount,
  };
}
export type PublicCollection = ReturnType<typeof toPublicCollection>;
