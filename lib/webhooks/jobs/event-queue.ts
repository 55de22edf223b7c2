import "server-only";
import { env } from "@/lib/env";
import { defineQueue } from "@/lib/jobs";
import { markEventDead, processWebhookEvent, type WebhookEventJobData } from "./process-event";

const WEBHOOK_EVENT_QUEUE = "webhook-event";

/**
 * One job per accepted event, enqueued in its transaction. At least once: a re-delivered job
 * resumes from the event's claims, so no agent runs twice. Upstream failures retry with backoff,
 * then the event is `dead`; the dead letter queue marks `dead` a job that failed for good without
 * saying why.
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
