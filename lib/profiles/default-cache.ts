import "server-only";
import { and, eq } from "drizzle-orm";
import { db as rootDb } from "@/db/client";
import { profiles, type Profile } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { registerCache } from "@/lib/cache/invalidation";
import { PROFILES_TOPIC } from "@/lib/cache/profiles-changed";

/**
 * The company's default profile (null included) cached per process, since every completion asks and
 * it rarely changes; evicted everywhere by NOTIFY, with a TTL in case a notification is lost.
 */
const TTL_MS = 30_000;
const MAX_ENTRIES = 50_000;

interface Entry {
  profile: Profile | null;
  at: number;
}
const byCompany = new Map<string, Entry>();
/**
 * Bumped by every eviction: a load that raced one does not store its result (the local eviction
 * precedes the commit, and the notification after it evicts again).
 */
let generation = 0;

const cacheLive = registerCache(
  PROFILES_TOPIC,
  (companyId) => {
    generation++;
    byCompany.delete(companyId);
  },
  () => {
    generation++;
    byCompany.clear();
  },
);

async function loadDefault(db: DbOrTx, companyId: string): Promise<Profile | null> {
  const [row] = await db
    .select()
    .from(profiles)
    .where(and(eq(profiles.companyId, companyId), eq(profiles.isDefault, true), eq(profiles.isActive, true)))
    .limit(1);
  return row ?? null;
}

/** The cached default (a profile, or null for none) when fresh, else undefined: lets the hot path skip even a promise. */
export function peekDefaultProfile(companyId: string): Profile | null | undefined {
  if (!cacheLive()) return undefined;
  const hit = byCompany.get(companyId);
  return hit && Date.now() - hit.at < TTL_MS ? hit.profile : undefined;
}

/** The active default profile, or null. Cached through the shared client; a transaction reads its own view. */
export async function findDefaultProfile(db: DbOrTx, companyId: string): Promise<Profile | null> {
  if (db !== rootDb) return loadDefault(db, companyId);
  const live = cacheLive();
  const hit = byCompany.get(companyId);
  const now = Date.now();
  if (live && hit && now - hit.at < TTL_MS) return hit.profile;
  const seen = generation;
  const profile = await loadDefault(db, companyId);
  if (live && seen === generation) {
    byCompany.set(companyId, { profile, at: now });
    if (byCompany.size > MAX_ENTRIES) byCompany.delete(byCompany.keys().next().value!);
  }
  return profile;
}
