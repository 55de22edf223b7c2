import type { Webhook } from "@/db/schema";
import { toUnix } from "@/lib/time";
import type { EventWithRuns } from "./list-webhooks";
import { triggerPath } from "./secrets";

/** An endpoint without its secret (never stored; shown once at creation or rotation). */
export function toPublicWebhook(w: Webhook) {
  return {
    id: w.id,
    object: "webhook" as const,
    name: w.name,
    agent_id: w.agentId,
    rate_limit_per_minute: w.rateLimitPerMinute,
    require_signature: w.requireSignature,
    is_active: w.isActive,
    rotated_at: w.rotatedAt ? toUnix(w.rotatedAt) : null,
    created_at: toUnix(w.createdAt),
  };
}
export type PublicWebhook = ReturnType<typeof toPublicWebhook>;

/** CONTRACT 3's shape for a secret just made: `{webhook_id, secret, url}`. */
export const toWebhookSecret = (w: Webhook, secret: string) => ({
  webhook_id: w.id,
  secret,
  url: triggerPath(w.companyId, secret),
});

export function toPublicEvent(e: EventWithRuns) {
  return {
    id: e.id,
    object: "webhook.event" as const,
    webhook_id: e.webhookId,
    event_topic: e.topic,
    payload: e.payload,
    status: e.status,
    attempts: e.attempts,
    error: e.error,
    created_at: toUnix(e.createdAt),
    completed_at: e.completedAt ? toUnix(e.completedAt) : null,
    runs: e.runs.map((r) => ({
      agent_id: r.agentId,
      thread_id: r.threadId,
      run_id: r.runId,
      status: r.status,
      error: r.error,
    })),
  };
}
export type PublicEvent = ReturnType<typeof toPublicEvent>;
