import "server-only";
import type { DbOrTx } from "@/db/types";
import { publishInvalidation } from "./invalidation";

/**
 * The invalidation topic of lib/profiles/default-cache.ts. Kept here, below both: a tool's rename
 * rewrites the profiles that offer it (lib/tools/update-tool.ts), and lib/profiles imports lib/tools.
 */
export const PROFILES_TOPIC = "profiles";

/** Call in the writing transaction after any change to a company's profiles. */
export async function announceProfilesChanged(conn: DbOrTx, companyId: string): Promise<void> {
  await publishInvalidation(conn, PROFILES_TOPIC, companyId);
}
