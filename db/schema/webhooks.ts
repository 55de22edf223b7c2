import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { WEBHOOK_EVENT_STATUS, WEBHOOK_EVENT_STATUSES, WEBHOOK_RUN_STATUS, WEBHOOK_RUN_STATUSES } from "../enums";
import { createdAt } from "./columns";
import { companies } from "./companies";
import { profiles } from "./profiles";

export const webhookEventStatusEnum = pgEnum("webhook_event_status", WEBHOOK_EVENT_STATUSES);
export const webhookRunStatusEnum = pgEnum("webhook_run_status", WEBHOOK_RUN_STATUSES);

/** An agent (SPEC 5.6): a company's profile woken by events; `topics` are segment patterns (`orders.*`). */
export const agents = pgTable(
  "agents",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
    conductorProfileId: uuid("conductor_profile_id")
      .notNull()
      .references(() => profiles.id),
    topics: text("topics")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("agents_company_created_idx").on(t.companyId, t.createdAt, t.id)],
);

/**
 * An endpoint `/v1/public/triggers/{company_id}/{secret}`; only the secret's SHA-256 is stored, and
 * the previous hash works until `rotated_at` + WEBHOOK_SECRET_GRACE_S. Bound to an agent, or
 * publishing to the company's bus.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    agentId: text("agent_id").references(() => agents.id),
    name: text("name").notNull(),
    secretHash: text("secret_hash").notNull(),
    previousSecretHash: text("previous_secret_hash"),
    rotatedAt: timestamp("rotated_at", { withTimezone: true }),
    /**
     * Standard Webhooks signing: with `require_signature` a delivery carries `webhook-id`, a recent
     * `webhook-timestamp` and `webhook-signature` (HMAC-SHA256 of `id.timestamp.body`, so the
     * secret is kept in the clear).
     */
    signingSecret: text("signing_secret"),
    requireSignature: boolean("require_signature").notNull().default(false),
    /** Accepted events per minute on this endpoint; null: WEBHOOK_RATE_LIMIT_PER_MINUTE. */
    rateLimitPerMinute: integer("rate_limit_per_minute"),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("webhooks_secret_hash_idx").on(t.secretHash),
    index("webhooks_previous_secret_hash_idx")
      .on(t.previousSecretHash)
      .where(sql`${t.previousSecretHash} IS NOT NULL`),
    index("webhooks_company_created_idx").on(t.companyId, t.createdAt, t.id),
  ],
);

/**
 * One accepted delivery, stored with its job before the 202. `idempotency_key` is unique per
 * webhook; a key older than 24 h is cleared by the next delivery reusing it.
 */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id),
    topic: text("topic").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    idempotencyKey: text("idempotency_key"),
    status: webhookEventStatusEnum("status").notNull().default(WEBHOOK_EVENT_STATUS.accepted),
    /** Processing attempts started (a job re-delivered after a crash counts again). */
    attempts: integer("attempts").notNull().default(0),
    /** Why the event is `failed` or `dead`. */
    error: text("error"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("webhook_events_idempotency_idx")
      .on(t.webhookId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} IS NOT NULL`),
    index("webhook_events_company_created_idx").on(t.companyId, t.createdAt.desc(), t.id.desc()),
    index("webhook_events_webhook_created_idx").on(t.webhookId, t.createdAt.desc()),
  ],
);

/**
 * The agents an event woke, one row per (event, agent), so a job run twice finds the claim.
 * `run_id` is committed before the run starts, so a re-delivered job resumes it; it is replaced
 * only after a retryable failure.
 */
export const webhookEventRuns = pgTable(
  "webhook_event_runs",
  {
    eventId: text("event_id")
      .notNull()
      .references(() => webhookEvents.id),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    threadId: text("thread_id"),
    runId: text("run_id"),
    /** Runs started for this agent and event (an upstream failure retried starts another). */
    runAttempts: integer("run_attempts").notNull().default(0),
    status: webhookRunStatusEnum("status").notNull().default(WEBHOOK_RUN_STATUS.pending),
    error: text("error"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.eventId, t.agentId] }),
    index("webhook_event_runs_agent_idx").on(t.agentId, t.createdAt.desc()),
  ],
);

export type Agent = typeof agents.$inferSelect;
export type Webhook = typeof webhooks.$inferSelect;
export type WebhookEvent = typeof webhookEvents.$inferSelect;
export type WebhookEventRun = typeof webhookEventRuns.$inferSelect;
