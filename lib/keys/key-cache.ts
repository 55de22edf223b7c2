import "server-only";
import { eq } from "drizzle-orm";
import { db, relaxedDb } from "@/db/client";
import type { KeyStatus, Scope } from "@/db/enums";
import { apiKeys } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { publishInvalidation, registerCache } from "@/lib/cache/invalidation";
import { log } from "@/lib/log";

/** What authentication needs of a key; small enough to cache. */
export interface KeyRecord {
  id: string;
  companyId: string;
  scopes: Scope[];
  rateLimitPerMinute: number;
  status: KeyStatus;
  expiresAtMs: number | null;
}

/** Upper bound on staleness if a notification is ever lost. */
const TTL_MS = 30_000;
const TOPIC = "key";

interface Entry {
  record: KeyRecord | null;
  at: number;
}
const byHash = new Map<string, Entry>();
const byId = new Map<string, Entry>();

function evict(keyId: string): void {
  byId.delete(keyId);
  for (const [hash, entry] of byHash) if (entry.record?.id === keyId) byHash.delete(hash);
}

/** A revoke in any process evicts the key everywhere within milliseconds (LISTEN/NOTIFY). */
const cacheLive = registerCache(TOPIC, evict, () => {
  byHash.clear();
  byId.clear();
});

const columns = {
  id: apiKeys.id,
  companyId: apiKeys.companyId,
  scopes: apiKeys.scopes,
  rateLimitPerMinute: apiKeys.rateLimitPerMinute,
  status: apiKeys.status,
  expiresAt: apiKeys.expiresAt,
};

async function load(where: ReturnType<typeof eq>): Promise<KeyRecord | null> {
  const [row] = await db.select(columns).from(apiKeys).where(where).limit(1);
  if (!row) return null;
  const { expiresAt, ...rest } = row;
  return { ...rest, expiresAtMs: expiresAt ? expiresAt.getTime() : null };
}

async function cached(
  map: Map<string, Entry>,
  k: string,
  fetch: () => Promise<KeyRecord | null>,
): Promise<KeyRecord | null> {
  const live = cacheLive();
  const now = Date.now();
  const hit = map.get(k);
  if (live && hit && now - hit.at < TTL_MS && hit.record) return hit.record;
  const record = await fetch();
  // Unknown keys are not cached: a flood of random keys must not grow memory.
  if (live && record) {
    map.set(k, { record, at: now });
    if (map.size > 50_000) map.delete(map.keys().next().value!);
  }
  return record;
}

export const findKeyByHash = (keyHash: string) => cached(byHash, keyHash, () => load(eq(apiKeys.keyHash, keyHash)));
export const findKeyById = (keyId: string) => cached(byId, keyId, () => load(eq(apiKeys.id, keyId)));

/** Evicts locally now and tells every other process (delivered when `db`'s transaction commits). */
export async function announceKeyRevoked(conn: DbOrTx, keyId: string): Promise<void> {
  await publishInvalidation(conn, TOPIC, keyId);
}

const touched = new Map<string, number>();
const TOUCH_EVERY_MS = 60_000;

/**
 * Records last use at most once a minute per key and process, since an UPDATE per request would
 * serialise a busy key's calls. Fire and forget; a failure is logged.
 */
export function markKeyUsed(keyId: string): void {
  const now = Date.now();
  if (now - (touched.get(keyId) ?? 0) < TOUCH_EVERY_MS) return;
  touched.set(keyId, now);
  relaxedDb
    .update(apiKeys)
    .set({ lastUsedAt: new Date(now) })
    .where(eq(apiKeys.id, keyId))
    .catch((err: unknown) => log.warn({ err, keyId }, "could not record key use"));
}
