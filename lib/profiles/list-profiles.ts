import "server-only";
import { and, eq } from "drizzle-orm";
import { profiles, type Profile } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { cursorPage, type Page, type PageQuery } from "@/lib/pagination";

/** Active profiles only (SPEC); deleted ones stay readable by id. */
export async function listProfiles(db: DbOrTx, args: { companyId: string; page: PageQuery }): Promise<Page<Profile>> {
  return cursorPage(db, {
    table: profiles,
    idColumn: profiles.id,
    createdColumn: profiles.createdAt,
    where: and(eq(profiles.companyId, args.companyId), eq(profiles.isActive, true)),
    page: args.page,
  });
}
