import "server-only";
import { profiles, type Profile } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { assertActiveCollections } from "@/lib/knowledge/collections";
import { assertActiveToolNames } from "@/lib/tools";
import { announceProfilesChanged } from "@/lib/cache/profiles-changed";
import { checkModelSlug, defaultConflict, demoteDefault } from "./internal";
import type { CreateProfileInput } from "./schemas";

/**
 * With `is_default` the previous default is demoted in the same transaction (SPEC 3).
 * @throws model_not_found / model_disabled for an unusable `model_slug`; 400 naming
 * `allowed_tool_names` or `knowledge_base_ids` for a name or id that is not one of the company's
 * active tools or collections.
 */
export async function createProfile(
  db: DbOrTx,
  args: { companyId: string; input: CreateProfileInput },
): Promise<Profile> {
  const { companyId, input } = args;
  if (input.model_slug) await checkModelSlug(companyId, input.model_slug);
  await assertActiveToolNames(db, companyId, input.allowed_tool_names);
  await assertActiveCollections(db, companyId, input.knowledge_base_ids);
  return db
    .transaction(async (tx) => {
      if (input.is_default) await demoteDefault(tx, { companyId });
      const [row] = await tx
        .insert(profiles)
        .values({
          companyId,
          name: input.name,
          systemPrompt: input.system_prompt,
          modelSlug: input.model_slug ?? null,
          knowledgeBaseIds: input.knowledge_base_ids,
          allowedToolNames: input.allowed_tool_names,
          useKb: input.use_kb,
          useTools: input.use_tools,
          isDefault: input.is_default,
        })
        .returning();
      await announceProfilesChanged(tx, companyId);
      return row!;
    })
    .catch((err: unknown) => {
      throw defaultConflict(err);
    });
}
