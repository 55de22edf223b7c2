import { sql } from "drizzle-orm";
import {
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { RUN_STATUS, RUN_STATUSES, THREAD_SOURCES } from "../enums";
import { callCompanyId, createdAt, jsonbValue, microOt } from "./columns";
import { companies } from "./companies";

export const threadSourceEnum = pgEnum("thread_source", THREAD_SOURCES);
export const runStatusEnum = pgEnum("run_status", RUN_STATUSES);

export const threads = pgTable(
  "threads",
  {
    id: text("id").primaryKey(),
    companyId: callCompanyId(),
    source: threadSourceEnum("source").notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    /**
     * The next message's seq, bumped in the statement that inserts messages (`UPDATE … RETURNING`),
     * so the row lock orders concurrent adds: seqs never collide and a bulk add is never
     * interleaved.
     */
    nextSeq: integer("next_seq").notNull().default(0),
    /** Where an imported thread came from (`openai:thread_…`): a second import of it finds this row. */
    importKey: text("import_key"),
    createdAt: createdAt(),
  },
  (t) => [
    index("threads_company_created_idx").on(t.companyId, t.createdAt, t.id),
    index("threads_company_source_idx").on(t.companyId, t.source, t.createdAt),
    uniqueIndex("threads_company_import_key_idx")
      .on(t.companyId, t.importKey)
      .where(sql`${t.importKey} IS NOT NULL`),
  ],
);

export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    companyId: callCompanyId(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id),
    model: text("model").notNull(),
    status: runStatusEnum("status").notNull().default(RUN_STATUS.queued),
    stream: boolean("stream").notNull().default(false),
    promptTokens: integer("prompt_tokens").notNull().default(0),
    completionTokens: integer("completion_tokens").notNull().default(0),
    cachedTokens: integer("cached_tokens").notNull().default(0),
    costMicro: microOt("cost_micro").notNull().default(0),
    latencyMs: integer("latency_ms"),
    finishReason: text("finish_reason"),
    error: jsonb("error").$type<{ code: string; message: string } | null>(),
    toolCalls: jsonb("tool_calls").$type<unknown[]>().notNull().default([]),
    appliedRules: jsonb("applied_rules").$type<unknown[]>().notNull().default([]),
    /** CONTRACT 6 `citations` (the retrieval stage's chunks). */
    citations: jsonb("citations").$type<unknown[]>().notNull().default([]),
    /** The run's steps in order (CONTRACT 6 run.step objects without their ids), written with the run. */
    steps: jsonb("steps").$type<unknown[]>().notNull().default([]),
    /** A response's chain (Responses API `previous_response_id`): its history is the messages of the runs along it. */
    previousRunId: text("previous_run_id"),
    /** The request fields a response echoes back (Responses API: instructions, tools, metadata, …); null for other runs. */
    request: jsonb("request").$type<Record<string, unknown> | null>(),
    /** Unused since migration 0011 (active runs live in active_runs); kept for rows written before. */
    owner: text("owner"),
    /** Unused since migration 0011 (see active_runs.cancel_requested_at). */
    cancelRequestedAt: timestamp("cancel_requested_at", { withTimezone: true }),
    createdAt: createdAt(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (t) => [index("runs_thread_idx").on(t.threadId, t.createdAt), index("runs_company_idx").on(t.companyId, t.createdAt)],
);

/**
 * Runs of persistent threads while they execute. The primary key on thread_id is "one active run
 * per thread" (409). The `runs` row is written once when the run ends, in the statement deleting
 * its row here, so `runs` gets one insert and the claim takes no foreign-key locks. No foreign
 * keys: rows live seconds and every ending path deletes them.
 */
export const activeRuns = pgTable("active_runs", {
  threadId: text("thread_id").primaryKey(),
  /** Not indexed: every lookup by run names its thread too (the primary key), except the cancel poll's scan of this small table. */
  runId: text("run_id").notNull(),
  companyId: text("company_id").notNull(),
  model: text("model").notNull(),
  stream: boolean("stream").notNull().default(false),
  /** The executing process (lib/billing/lease-owner.ts format): the reconciler fails the runs of an owner it sees gone. */
  owner: text("owner").notNull(),
  /** Set by POST …/cancel; the executing process polls it (a cancel may reach another server). */
  cancelRequestedAt: timestamp("cancel_requested_at", { withTimezone: true }),
  createdAt: createdAt(),
});

export const messages = pgTable(
  "messages",
  {
    id: text("id").primaryKey(),
    companyId: callCompanyId(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id),
    /** Roles are preserved as given (SPEC): system, user, assistant, tool, developer, … */
    role: text("role").notNull(),
    /** A string or an array of content parts, exactly as received or produced. */
    content: jsonbValue("content").notNull(),
    /** Other fields of the wire message worth keeping (`tool_calls`, `tool_call_id`, `name`). */
    extra: jsonb("extra").$type<Record<string, unknown>>().notNull().default({}),
    runId: text("run_id"),
    /** Order within the thread (0, 1, …; see threads.next_seq); messages inserted in one statement share created_at. */
    seq: integer("seq").notNull().default(0),
    /**
     * o200k tokens of the message's texts (not framing or images), counted when added so a history
     * budget sums stored numbers; NULL for completions' records, counted on read.
     */
    tokens: integer("tokens"),
    createdAt: createdAt(),
  },
  // Unique: a second writer that skipped threads.next_seq fails instead of interleaving. Serves
  // message pages and newest-first history reads in both directions.
  (t) => [uniqueIndex("messages_thread_seq_idx").on(t.threadId, t.seq)],
);

const bytea = customType<{ data: Buffer }>({ dataType: () => "bytea" });

/**
 * `data:` image bytes of persistent threads by content: a message stores `sha256:<hex>` and runs
 * read bytes back from here. Per company, so one company's image is never served to another;
 * duplicates are stored once.
 */
export const messageImages = pgTable(
  "message_images",
  {
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    sha256: text("sha256").notNull(),
    mimeType: text("mime_type").notNull(),
    bytes: bytea("bytes").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.sha256] })],
);

export type Thread = typeof threads.$inferSelect;
export type Run = typeof runs.$inferSelect;
export type Message = typeof messages.$inferSelect;
