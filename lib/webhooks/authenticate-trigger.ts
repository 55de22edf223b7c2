import "server-only";
import { and, eq, or } from "drizzle-orm";
import { sql } from "@/db/sql";
import { webhooks, type Webhook } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { publishInvalidation, registerCache } from "@/lib/cache/invalidation";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { hashWebhookSecret, sameHash } from "./secrets";

/** One answer for an unknown company, an unknown or paused endpoint and a wrong secret: nothing to tell them apart. */
const refused = () => new AppError("forbidden", "Invalid webhook URL", { wireCode: "invalid_webhook" });

/**
 * Endpoints by (company, secret hash) per process, evicted everywhere on change through the
 * invalidation channel, with a TTL in case a notification is lost. Unknown URLs are never cached
 * (random secrets cannot grow memory), and a cached endpoint is rechecked on each use.
 */
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;
const TOPIC = "webhook";
const cache = new Map<string, { webhook: Webhook; at: number }>();

const cacheLive = registerCache(
  TOPIC,
  (webhookId) => {
    for (const [k, e] of cache) if (e.webhook.id === webhookId) cache.delete(k);
  },
  () => cache.clear(),
);

/** Evicts the endpoint here now and in every other process (when `db`'s transaction commits). */
export function announceWebhookChanged(db: DbOrTx, webhookId: string): Promise<void> {
  return publishInvalidation(db, TOPIC, webhookId);
}

function accepts(webhook: Webhook, companyId: string, hash: string): boolean {
  if (webhook.companyId !== companyId || !webhook.isActive) return false;
  if (sameHash(webhook.secretHash, hash)) return true;
  const rotated = webhook.rotatedAt?.getTime();
  return (
    webhook.previousSecretHash !== null &&
    rotated !== undefined &&
    rotated > Date.now() - env.WEBHOOK_SECRET_GRACE_S * 1000 &&
    sameHash(webhook.previousSecretHash, hash)
  );
}

/**
 * The active endpoint whose secret (or previous one within WEBHOOK_SECRET_GRACE_S) is `secret`.
 * Looked up by SHA-256 and compared again in constant time, so no timing depends on the secret.
 * @throws forbidden (403) for anything else.
 */
export async function authenticateTrigger(db: DbOrTx, args: { companyId: string; secret: string }): Promise<Webhook> {
  if (args.secret.length === 0 || args.secret.length > 200 || args.companyId.length > 100) throw refused();
  const hash = hashWebhookSecret(args.secret);
  const key = `${args.companyId}\u0000${hash}`;
  const live = cacheLive();
  const hit = live ? cache.get(key) : undefined;
  if (hit && Date.now() - hit.at < TTL_MS && accepts(hit.webhook, args.companyId, hash)) return hit.webhook;
  if (hit) cache.delete(key);
  const graceStart = sql`now() - make_interval(secs => ${env.WEBHOOK_SECRET_GRACE_S})`;
  const [row] = await db
    .select()
    .from(webhooks)
    .where(
      and(
        eq(webhooks.companyId, args.companyId),
        eq(webhooks.isActive, true),
        or(
          eq(webhooks.secretHash, hash),
          and(eq(webhooks.previousSecretHash, hash), sql`${webhooks.rotatedAt} > ${graceStart}`),
        ),
      ),
    )
    .limit(1);
  // The hash found is compared again in constant time (and the grace period on this clock).
  if (!row || !accepts(row, args.companyId, hash)) throw refused();
  if (live) {
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(key, { webhook: row, at: Date.now() });
  }
  return row;
}
