import "server-only";
import type { Webhook } from "@/db/schema";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { consumeRateLimit, rateLimitHeaders } from "@/lib/rate-limit/limiter";

/**
 * Counts a delivery against its endpoint's shared per-minute budget, so one noisy sender cannot
 * fill the queue.
 * @throws rate_limited (429) with Retry-After; never a 202 for an event that is then dropped.
 */
export async function enforceWebhookRateLimit(webhook: Webhook): Promise<Record<string, string>> {
  const limit = webhook.rateLimitPerMinute ?? env.WEBHOOK_RATE_LIMIT_PER_MINUTE;
  const decision = await consumeRateLimit(`webhook:${webhook.id}`, limit);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    throw new AppError("rate_limited", `Rate limit reached: ${decision.limit} events per minute for this webhook`, {
      wireCode: "rate_limit_exceeded",
      headers: { ...headers, "retry-after": String(Math.max(1, Math.ceil(decision.resetMs / 1000))) },
    });
  }
  return headers;
}
