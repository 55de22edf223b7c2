import type { Profile } from "@/db/schema";
import { toUnix } from "@/lib/time";

/** CONTRACT 5.6: SPEC's fields + `{id, object, created_at, updated_at}`, and `is_active`. */
export function toPublicProfile(p: Profile) {
  return {
    id: p.id,
    object: "profile" as const,
    name: p.name,
    system_prompt: p.systemPrompt,
    model_slug: p.modelSlug,
    knowledge_base_ids: p.knowledgeBaseIds,
    allowed_tool_names: p.allowedToolNames,
    use_kb: p.useKb,
    use_tools: p.useTools,
    is_default: p.isDefault,
    is_active: p.isActive,
    created_at: toUnix(p.createdAt),
    updated_at: toUnix(p.updatedAt),
  };
}

/** The list without `full=true`: no system prompt, no knowledge-base or tool bindings (CONTRACT 5.6). */
export function toPublicProfileSummary(p: Profile) {
  const { system_prompt: _s, knowledge_base_ids: _k, allowed_tool_names: _t, ...rest } = toPublicProfile(p);
  return rest;
}
