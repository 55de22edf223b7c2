import "server-only";
import { and, eq } from "drizzle-orm";
import { profiles, type Profile } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { announceProfilesChanged } from "@/lib/cache/profiles-changed";
import { getProfileInCompany } from "./internal";

/**
 * Soft delete (SPEC 3): readable by id with `is_active: false`, and agents naming it still resolve
 * it; a deleted default leaves the company without one.
 * @throws not_found for another company's or an unknown id; conflict when already deleted.
 */
export async function deleteProfile(db: DbOrTx, args: { companyId: string; profileId: string }): Promise<Profile> {
  const profile = await getProfileInCompany(db, args);
  return db.transaction(async (tx) => {
    // Active guard in WHERE: of two concurrent deletes one updates, the other gets the 409.
    const [row] = await tx
      .update(profiles)
      .set({ isActive: false, isDefault: false, updatedAt: new Date() })
      .where(and(eq(profiles.id, profile.id), eq(profiles.companyId, args.companyId), eq(profiles.isActive, true)))
      .returning();
    if (!row) throw new AppError("conflict", "Profile already deleted", { wireCode: "already_deleted" });
    await announceProfilesChanged(tx, args.companyId);
    return row;
  });
}
