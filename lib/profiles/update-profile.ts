import "server-only";
import { and, eq } from "drizzle-orm";
import { profiles, type Profile } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { assertActiveCollections } from "@/lib/knowledge/collections";
import { assertActiveToolNames } from "@/lib/tools";
import { announceProfilesChanged } from "@/lib/cache/profiles-changed";
import { checkModelSlug, defaultConflict, demoteDefault, getProfileInCompany } from "./internal";
import type { UpdateProfileInput } from "./schemas";

/**
 * PATCH: only the given fields change. `is_default: true` demotes the previous default in the same
 * transaction; concurrent promotions serialise and the last commit wins.
 * @throws not_found (another company's or unknown id), conflict for a deleted profile,
 * model_not_found / model_disabled for an unusable `model_slug`, 400 naming `allowed_tool_names` or
 * `knowledge_base_ids`.
 */
export async function updateProfile(
  db: DbOrTx,
  args: { companyId: string; profileId: string; input: UpdateProfileInput },
): Promise<Profile> {
  const { companyId, profileId, input } = args;
  // Existence first: another company's id is a 404 whatever the body says.
  const current = await getProfileInCompany(db, { companyId, profileId });
  if (!current.isActive)
    throw new AppError("conflict", "This profile was deleted and cannot be changed", { wireCode: "profile_deleted" });
  if (input.model_slug) await checkModelSlug(companyId, input.model_slug);
  if (input.allowed_tool_names) await assertActiveToolNames(db, companyId, input.allowed_tool_names);
  if (input.knowledge_base_ids) await assertActiveCollections(db, companyId, input.knowledge_base_ids);
  return db
    .transaction(async (tx) => {
      if (input.is_default === true) await demoteDefault(tx, { companyId, keepId: current.id });
      const [row] = await tx
        .update(profiles)
        .set({
          name: input.name,
          systemPrompt: input.system_prompt,
          modelSlug: input.model_slug,
          knowledgeBaseIds: input.knowledge_base_ids,
          allowedToolNames: input.allowed_tool_names,
          useKb: input.use_kb,
          useTools: input.use_tools,
          isDefault: input.is_default,
          updatedAt: new Date(),
        })
        // Active guard in WHERE: a delete that committed meanwhile wins; nothing is revived.
        .where(and(eq(profiles.id, current.id), eq(profiles.companyId, companyId), eq(profiles.isActive, true)))
        .returning();
      if (!row)
        throw new AppError("conflict", "This profile was deleted and cannot be changed", {
          wireCode: "profile_deleted",
        });
      await announceProfilesChanged(tx, companyId);
      return row;
    })
    .catch((err: unknown) => {
      throw defaultConflict(err);
    });
}
