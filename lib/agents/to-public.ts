import type { Agent } from "@/db/schema";
import { toUnix } from "@/lib/time";

export function toPublicAgent(a: Agent) {
  return {
    id: a.id,
    object: "agent" as const,
    name: a.name,
    conductor_profile_id: a.conductorProfileId,
    topics: a.topics,
    is_active: a.isActive,
    created_at: toUnix(a.createdAt),
  };
}
export type PublicAgent = ReturnType<typeof toPublicAgent>;
