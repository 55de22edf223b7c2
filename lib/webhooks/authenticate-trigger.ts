import "server-only";
import { and, eq, or, sql } from "drizzle-orm";
import { webhooks, type Webhook } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { hashWebhookSecret, sameHash } from "./secrets";

/** One answer for an unknown company, an unknown or paused endpoint and a wrong secret: nothing to tell them apart. */
const refused = () => new AppError("forbidden", "Invalid webhook URL", { wireCode: "invalid_webhook" });

/**
 * The active endpoint of `companyId` whose secret (or, within WEBHOOK_SECRET_GRACE_S of a rotation,
 * previous secret) is `secret`. Only hashes are compared: the lookup is by the SHA-256 (an index),
 * and the hash found is compared again in constant time, so no timing depends on the secret itself.
 * @throws forbidden (403) for anything else.
 */
export async function authenticateTrigger(db: DbOrTx, args: { companyId: string; secret: string }): Promise<Webhook> {
  if (args.secret.length === 0 || args.secret.length > 200 || args.companyId.length > 100) throw refused();
  const hash = hashWebhookSecret(args.secret);
  const graceStart = sql`now() - make_interval(secs => ${env.WEBHOOK_SECRET_GRACE_S})`;
  const [row] = await db
    .select()
    .from(webhooks)
    .where(
      and(
        eq(webhooks.companyId, args.companyId),
        eq(webhooks.isActive, true),
        or(eq(webhooks.secretHash, hash), and(eq(webhooks.previousSecretHash, hash), sql`${webhooks.rotatedAt} > ${graceStart}`)),
      ),
    )
    .limit(1);
  if (!row) throw refused();
  const current = sameHash(row.secretHash, hash);
  const previous = row.previousSecretHash !== null && sameHash(row.previousSecretHash, hash);
  if (!current && !previous) throw refused();
  return row;
}
