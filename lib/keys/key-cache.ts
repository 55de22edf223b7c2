import "server-only";
import { eq, sql as dsql } from "drizzle-orm";
import { db, sql } from "@/db/client";
import type { KeyStatus, Scope } from "@/db/enums";
import { apiKeys } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
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

const CHANNEL = "cockpit_key_changed";
/** Upper bound on staleness if a notification is ever lost (e.g. while the listener reconnects). */
const TTL_MS = 30_000;

interface Entry {
  record: KeyRecord | null;
  at: number;
}
const byHash = new Map<string, Entry>();
const byId = new Map<string, Entry>();

/**
 * Every process LISTENs for key changes and evicts the key at once, so a revoke in one process
 * reaches all others in milliseconds. Until the listener is connected nothing is cached, and a
 * (re)connect clears the cache because notifications may have been missed while it was down.
 */
let listenerReady = false;
let listenerStarted = false;
function ensureListener(): void {
  if (listenerStarted) return;
  listenerStarted = true;
  sql
    .listen(CHANNEL, (keyId) => evict(keyId), () => {
      byHash.clear();
      byId.clear();
      listenerReady = true;
    })
    .catch((err: unknown) => {
      listenerStarted = false;
      listenerReady = false;
      log.warn({ err }, "key cache listener failed; serving keys uncached");
    });
}

function evict(keyId: string): void {
  byId.delete(keyId);
  for (const [hash, entry] of byHash) if (entry.record?.id === keyId) byHash.delete(hash);
}

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

async function cached(map: Map<string, Entry>, k: string, fetch: () => Promise<KeyRecord | null>): Promise<KeyRecord | null> {
  ensureListener();
  const now = Date.now();
  const hit = map.get(k);
  if (listenerReady && hit && now - hit.at < TTL_MS && hit.record) return hit.record;
  const record = await fetch();
  // Unknown keys are not cached: a flood of random keys must not grow memory.
  if (listenerReady && record) {
    map.set(k, { record, at: now });
    if (map.size > 50_000) map.delete(map.keys().next().value!);
  }
  return record;
}

export const findKeyByHash = (keyHash: string) => cached(byHash, keyHash, () => load(eq(apiKeys.keyHash, keyHash)));
export const findKeyById = (keyId: string) => cached(byId, keyId, () => load(eq(apiKeys.id, keyId)));

/** Evicts locally now and tells every other process (delivered when `db`'s transaction commits). */
export async function announceKeyRevoked(conn: DbOrTx, keyId: string): Promise<void> {
  evict(keyId);
  await conn.execute(dsql`select pg_notify(${CHANNEL}, ${keyId})`);
}

const touched = new Map<string, number>();
const TOUCH_EVERY_MS = 60_000;

/**
 * Records last use at most once a minute per key and process: an UPDATE of one hot row per request
 * would serialise every call of a busy key. Fire and forget; a failure is logged, never surfaced.
 */
export function markKeyUsed(keyId: string): void {
  const now = Date.now();
  if (now - (touched.get(keyId) ?? 0) < TOUCH_EVERY_MS) return;
  touched.set(keyId, now);
  db.update(apiKeys)
    .set({ lastUsedAt: new Date(now) })
    .where(eq(apiKeys.id, keyId))
    .catch((err: unknown) => log.warn({ err, keyId }, "could not record key use"));
}
