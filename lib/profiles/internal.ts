import "server-only";
import { and, eq } from "drizzle-orm";
import { sql } from "@/db/sql";
import { z } from "zod";
import { profiles, type Profile } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { isUniqueViolation } from "@/db/pg-errors";
import { AppError } from "@/lib/errors";
import { MODEL_KIND, refuseDisabled, refuseOtherKind, resolveVisibleModel } from "@/lib/models";

const Uuid = z.uuid();
/** Profile ids are UUIDs: anything else names no profile (and must not reach a uuid column as a 500). */
export const isProfileId = (id: string): boolean => Uuid.safeParse(id).success;

export const profileNotFound = (id: string, param: string | null = null) =>
  new AppError("not_found", `No profile found with id '${id}'`, { wireCode: "profile_not_found", param });

/**
 * Active or soft-deleted (deleted profiles stay readable by id).
 * @throws not_found when it does not exist or belongs to another company (the same answer).
 */
export async function getProfileInCompany(
  db: DbOrTx,
  args: { companyId: string; profileId: string },
): Promise<Profile> {
  if (!isProfileId(args.profileId)) throw profileNotFound(args.profileId);
  const [row] = await db
    .select()
    .from(profiles)
    .where(and(eq(profiles.id, args.profileId), eq(profiles.companyId, args.companyId)))
    .limit(1);
  if (!row) throw profileNotFound(args.profileId);
  return row;
}

/**
 * A profile's model must be one the company can call, as completions decide it.
 * @throws 404 model_not_found (unknown or hidden), 400 model_disabled naming the replacement, 400
 * model_not_supported for an embedding model.
 */
export async function checkModelSlug(companyId: string, slug: string): Promise<void> {
  const eff = await resolveVisibleModel({ companyId, slug, param: "model_slug" });
  refuseDisabled(eff, slug, "model_slug");
  refuseOtherKind(slug, MODEL_KIND.chat, "model_slug");
}

/**
 * Takes the company's default lock, then demotes the current default (except `keepId`). Needs a
 * transaction. Without the lock, two promotions under READ COMMITTED demote the same old default
 * and the second fails on the unique index; an advisory lock serialises them without locking the
 * hot `companies` row, and the last commit wins.
 */
export async function demoteDefault(tx: DbOrTx, args: { companyId: string; keepId?: string }): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`profiles.default:${args.companyId}`}, 0))`);
  await tx
    .update(profiles)
    .set({ isDefault: false, updatedAt: new Date() })
    .where(
      and(
        eq(profiles.companyId, args.companyId),
        eq(profiles.isDefault, true),
        args.keepId ? sql`${profiles.id} <> ${args.keepId}` : undefined,
      ),
    );
}

/** The default index refused a write: only possible if a writer skipped demoteDefault. Never a 500. */
export function defaultConflict(err: unknown): unknown {
  if (!isUniqueViolation(err)) return err;
  return new AppError("conflict", "Another profile became the default at the same time; retry", {
    wireCode: "default_conflict",
    param: "is_default",
    cause: err,
  });
}
