import "server-only";
import { env } from "@/lib/env";
import { defineQueue } from "@/lib/jobs";
import { markEventDead, processWebhookEvent, type WebhookEventJobData } from "./process-event";

const WEBHOOK_EVENT_QUEUE = "webhook-event";

/**
 * Accepted webhook events, one job each (enqueued in the event's own transaction). At least once:
 * a job re-delivered after a crash resumes from the event's claims (process-event.ts), so no agent
 * runs twice for one event. Upstream failures are retried WEBHOOK_JOB_RETRIES times with
 * exponential backoff from WEBHOOK_JOB_RETRY_DELAY_S; after the last the event is `dead`, and a job
 * that failed for good without its handler saying why (expired on its last try) lands in the dead
 * letter queue, whose handler marks the event `dead` too.
 */
export const webhookEventQueue = defineQueue<WebhookEventJobData>({
  name: WEBHOOK_EVENT_QUEUE,
  sendOptions: () => ({
    retryLimit: env.WEBHOOK_JOB_RETRIES,
    retryDelay: env.WEBHOOK_JOB_RETRY_DELAY_S,
    retryBackoff: true,
    expireInSeconds: env.WEBHOOK_JOB_EXPIRE_S,
    deadLetter: `${WEBHOOK_EVENT_QUEUE}-failed`,
  }),
  maxRunSeconds: () => env.WEBHOOK_JOB_MAX_S,
  concurrency: () => env.WEBHOOK_WORKER_CONCURRENCY,
  // Each event is a model run: on the server, the jobs thread's (lib/jobs/jobs-thread.ts).
  thread: true,
  handle: processWebhookEvent,
  deadLetter: {
    name: `${WEBHOOK_EVENT_QUEUE}-failed`,
    handle: (job) =>
      markEventDead(
        job.data,
        "processing stopped without finishing on every attempt (the worker was stopped or timed out)",
      ),
  },
});
