import "server-only";
import { and, eq, inArray, isNull, or } from "drizzle-orm";
import { sql } from "@/db/sql";
import { db } from "@/db/client";
import type { Tx } from "@/db/types";
import { RUN_STATUS, SCOPE, THREAD_SOURCE, WEBHOOK_EVENT_STATUS, WEBHOOK_RUN_STATUS } from "@/db/enums";
import { isConnectionError } from "@/db/resilience";
import {
  activeRuns,
  agents,
  profiles,
  runs,
  webhookEventRuns,
  webhookEvents,
  webhooks,
  type WebhookEvent,
  type WebhookEventRun,
} from "@/db/schema";
import { matchesAny } from "@/lib/agents";
import { CREDENTIAL, type AuthContext } from "@/lib/auth/auth-context";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import type { JobRun } from "@/lib/jobs";
import { log } from "@/lib/log";
import { createRun } from "@/lib/runs";
import { createThread } from "@/lib/threads";

export interface WebhookEventJobData {
  eventId: string;
  companyId: string;
}

/** The service acting for the company: an agent's run is billed to it like any other run. */
const systemAuth = (companyId: string): AuthContext => ({
  companyId,
  scopes: [SCOPE.chat],
  credential: CREDENTIAL.system,
  keyId: null,
  userId: null,
  rateLimitPerMinute: null,
});

/** What one agent's part of an event came to. */
type Outcome =
  { kind: "completed" } | { kind: "failed"; reason: string } | { kind: "retry"; reason: string; err?: unknown };

/**
 * Run failures another attempt may fix (upstream errors, a dead or stalled run's server, the
 * database away, internal); anything else (402, a disabled model, a guardrail) fails the agent's
 * part for good.
 */
function retryableCode(code: string): boolean {
  return (
    code.startsWith("upstream_") ||
    ["server_lost", "run_timeout", "database_unavailable", "internal_error"].includes(code)
  );
}

function classify(err: unknown): Outcome {
  if (err instanceof AppError) {
    const reason = `${err.wireCode}: ${err.message}`;
    if (
      err.code === "upstream_error" ||
      err.code === "unavailable" ||
      err.code === "internal" ||
      err.code === "conflict" ||
      retryableCode(err.wireCode)
    ) {
      return { kind: "retry", reason, err };
    }
    return { kind: "failed", reason };
  }
  if (isConnectionError(err))
    return { kind: "retry", reason: "database_unavailable: the database was unreachable", err };
  return { kind: "retry", reason: "internal_error: the run could not be started", err };
}

const eventWhere = (data: WebhookEventJobData) =>
  and(eq(webhookEvents.id, data.eventId), eq(webhookEvents.companyId, data.companyId));
const unfinished = inArray(webhookEvents.status, [
  WEBHOOK_EVENT_STATUS.accepted,
  WEBHOOK_EVENT_STATUS.routed,
  WEBHOOK_EVENT_STATUS.processing,
]);

async function setEventStatus(
  data: WebhookEventJobData,
  status: WebhookEvent["status"],
  error: string | null = null,
): Promise<void> {
  const terminal =
    status === WEBHOOK_EVENT_STATUS.done ||
    status === WEBHOOK_EVENT_STATUS.failed ||
    status === WEBHOOK_EVENT_STATUS.dead;
  await db
    .update(webhookEvents)
    .set({ status, error, updatedAt: new Date(), ...(terminal ? { completedAt: new Date() } : {}) })
    .where(and(eventWhere(data), unfinished));
}

/** Marks an unfinished event `dead` with the reason (idempotent: a finished event keeps its status). */
export async function markEventDead(data: WebhookEventJobData, reason: string): Promise<void> {
  await setEventStatus(data, WEBHOOK_EVENT_STATUS.dead, reason);
}

/** What waking an agent needs: its conductor profile's id and model (null when the profile names none). */
interface Conductor {
  profileId: string | null;
  modelSlug: string | null;
}

/** An agent's conductor profile (the company's own; left joined: a missing one reads as nulls). */
const conductorJoin = and(eq(profiles.id, agents.conductorProfileId), eq(profiles.companyId, agents.companyId));

/** The agents an event wakes, with conductors, in one statement: a bound webhook's active agent, else the company bus's matches. */
async function targetsOf(tx: Tx, event: WebhookEvent): Promise<Map<string, Conductor>> {
  const rows = await tx
    .select({
      agentId: agents.id,
      topics: agents.topics,
      boundTo: webhooks.agentId,
      profileId: profiles.id,
      modelSlug: profiles.modelSlug,
    })
    .from(webhooks)
    .innerJoin(
      agents,
      and(
        eq(agents.companyId, webhooks.companyId),
        eq(agents.isActive, true),
        or(isNull(webhooks.agentId), eq(agents.id, webhooks.agentId)),
      ),
    )
    .leftJoin(profiles, conductorJoin)
    .where(and(eq(webhooks.id, event.webhookId), eq(webhooks.companyId, event.companyId)));
  return new Map(
    rows
      .filter((r) => r.boundTo !== null || matchesAny(r.topics, event.topic))
      .map((r) => [r.agentId, { profileId: r.profileId, modelSlug: r.modelSlug }]),
  );
}

/** An agent's conductor read afresh (a job delivered again finds its event routed already). */
async function conductorOf(event: WebhookEvent, agentId: string): Promise<Conductor> {
  const [row] = await db
    .select({ profileId: profiles.id, modelSlug: profiles.modelSlug })
    .from(agents)
    .leftJoin(profiles, conductorJoin)
    .where(and(eq(agents.id, agentId), eq(agents.companyId, event.companyId)));
  return row ?? { profileId: null, modelSlug: null };
}

interface Attempt {
  event: WebhookEvent;
  claims: WebhookEventRun[];
  /** The conductors read while routing (the first attempt), by agent id. */
  conductors: Map<string, Conductor>;
}

/**
 * Starts an attempt in ONE transaction: counts it (the row lock makes two deliveries route once),
 * routes the event the first time with one claim per woken agent, and returns the claims. Null when
 * the event is finished or gone.
 */
async function startAttempt(data: WebhookEventJobData): Promise<Attempt | null> {
  return db.transaction(async (tx) => {
    const [event] = await tx
      .update(webhookEvents)
      .set({ attempts: sql`${webhookEvents.attempts} + 1`, updatedAt: new Date() })
      .where(and(eventWhere(data), unfinished))
      .returning();
    if (!event) return null;
    const readClaims = () => tx.select().from(webhookEventRuns).where(eq(webhookEventRuns.eventId, event.id));
    // Claims are written with the move to `routed` (and kept by a replay, which routes it again).
    const done = () => {
      const now = new Date();
      return tx
        .update(webhookEvents)
        .set({ status: WEBHOOK_EVENT_STATUS.done, error: null, updatedAt: now, completedAt: now })
        .where(eq(webhookEvents.id, event.id));
    };
    if (event.status !== WEBHOOK_EVENT_STATUS.accepted) {
      const claims = await readClaims();
      if (claims.length === 0) await done();
      return { event, claims, conductors: new Map() };
    }
    const targets = await targetsOf(tx, event);
    if (targets.size === 0) {
      await done();
      return { event, claims: [], conductors: targets };
    }
    const inserted = await tx
      .insert(webhookEventRuns)
      .values([...targets.keys()].map((agentId) => ({ eventId: event.id, agentId, companyId: event.companyId })))
      .onConflictDoNothing()
      .returning();
    await tx
      .update(webhookEvents)
      .set({ status: WEBHOOK_EVENT_STATUS.routed, updatedAt: new Date() })
      .where(eq(webhookEvents.id, event.id));
    return { event, claims: inserted.length === targets.size ? inserted : await readClaims(), conductors: targets };
  });
}

/** The user message an agent is woken with: the event as JSON text. */
const eventMessage = (event: Pick<WebhookEvent, "topic" | "payload">): string =>
  JSON.stringify({ event_topic: event.topic, payload: event.payload });

async function settleClaim(
  claim: WebhookEventRun,
  status: WebhookEventRun["status"],
  error: string | null = null,
): Promise<void> {
  await db
    .update(webhookEventRuns)
    .set({ status, error, updatedAt: new Date() })
    .where(and(eq(webhookEventRuns.eventId, claim.eventId), eq(webhookEventRuns.agentId, claim.agentId)));
}

/**
 * Takes the next run id for this agent's part with ONE conditional update (the replaced id in its
 * WHERE), committed with the thread it first creates; of two deliveries only one wins and the loser
 * later finds its run.
 */
async function claimRun(
  event: WebhookEvent,
  claim: WebhookEventRun,
): Promise<{ threadId: string; runId: string } | null> {
  return db
    .transaction(async (tx) => {
      let threadId = claim.threadId;
      if (!threadId) {
        const thread = await createThread(tx, {
          companyId: event.companyId,
          source: THREAD_SOURCE.webhook,
          input: {
            metadata: { event_id: event.id, webhook_id: event.webhookId, topic: event.topic, agent_id: claim.agentId },
            messages: [{ role: "user", content: eventMessage(event) }],
          },
        });
        threadId = thread.id;
      }
      const runId = newId("run");
      const [won] = await tx
        .update(webhookEventRuns)
        .set({
          threadId,
          runId,
          status: WEBHOOK_RUN_STATUS.running,
          runAttempts: sql`${webhookEventRuns.runAttempts} + 1`,
          updatedAt: new Date(),
        })
        .where(
          and(
            eq(webhookEventRuns.eventId, claim.eventId),
            eq(webhookEventRuns.agentId, claim.agentId),
            claim.runId === null ? isNull(webhookEventRuns.runId) : eq(webhookEventRuns.runId, claim.runId),
          ),
        )
        .returning({ eventId: webhookEventRuns.eventId });
      if (!won) {
        tx.rollback();
      }
      return { threadId, runId };
    })
    .catch((err: unknown) => {
      if (err instanceof Error && err.name === "TransactionRollbackError") return null;
      throw err;
    });
}

/**
 * One agent's part: one run at a time per (event, agent), none after one completed. A claimed id
 * without a run row is started under that id; a running one waits for the next attempt; a failed
 * one is replaced only if retryable.
 */
async function wakeAgent(
  event: WebhookEvent,
  claim: WebhookEventRun,
  known: Conductor | undefined,
  signal: AbortSignal,
): Promise<Outcome> {
  if (claim.status === WEBHOOK_RUN_STATUS.completed) return { kind: "completed" };
  if (claim.status === WEBHOOK_RUN_STATUS.failed) return { kind: "failed", reason: claim.error ?? "failed" };
  let target: { threadId: string; runId: string } | null = null;
  if (claim.runId && claim.threadId) {
    const [run] = await db
      .select({ status: runs.status, error: runs.error })
      .from(runs)
      .where(eq(runs.id, claim.runId));
    // A run that has not ended has no runs row yet: it is in active_runs (lib/runs/claim-thread.ts).
    const [active] = run
      ? []
      : await db
          .select({ runId: activeRuns.runId })
          .from(activeRuns)
          .where(and(eq(activeRuns.threadId, claim.threadId), eq(activeRuns.runId, claim.runId)));
    if (active) return { kind: "retry", reason: `run ${claim.runId} of the previous attempt is still in progress` };
    if (!run) target = { threadId: claim.threadId, runId: claim.runId };
    else if (run.status === RUN_STATUS.completed) {
      await settleClaim(claim, WEBHOOK_RUN_STATUS.completed);
      return { kind: "completed" };
    } else if (run.status === RUN_STATUS.queued || run.status === RUN_STATUS.in_progress) {
      return { kind: "retry", reason: `run ${claim.runId} of the previous attempt is still in progress` };
    } else {
      const code = run.error?.code ?? "internal_error";
      const reason = `${code}: ${run.error?.message ?? run.status}`;
      if (!retryableCode(code)) {
        await settleClaim(claim, WEBHOOK_RUN_STATUS.failed, reason);
        return { kind: "failed", reason };
      }
    }
  }
  target ??= await claimRun(event, claim);
  if (!target) return { kind: "retry", reason: "another delivery of this event claimed the agent's run" };

  const profile = known ?? (await conductorOf(event, claim.agentId));
  if (!profile.profileId || !profile.modelSlug) {
    const reason = "agent_misconfigured: the agent's profile names no model";
    await settleClaim(claim, WEBHOOK_RUN_STATUS.failed, reason);
    return { kind: "failed", reason };
  }
  try {
    const run = await createRun({
      auth: systemAuth(event.companyId),
      threadId: target.threadId,
      runId: target.runId,
      input: { model: profile.modelSlug, profile_ids: [profile.profileId] },
      // The job's signal: a run still going after WEBHOOK_JOB_MAX_S is stopped with its attempt.
      signal,
      admitted: Promise.resolve(),
    });
    if (run.status === RUN_STATUS.completed) {
      await settleClaim(claim, WEBHOOK_RUN_STATUS.completed);
      return { kind: "completed" };
    }
    const reason = `run_${run.status}: the agent's run ended ${run.status}`;
    await settleClaim(claim, WEBHOOK_RUN_STATUS.failed, reason);
    return { kind: "failed", reason };
  } catch (err) {
    const outcome = classify(err);
    if (outcome.kind === "failed") await settleClaim(claim, WEBHOOK_RUN_STATUS.failed, outcome.reason);
    return outcome;
  }
}

/**
 * The `webhook-event` job: route once, wake each agent, then `done` when all runs completed (or
 * none matched), `failed` when one failed for good, and a throw for retryable failures so pg-boss
 * backs off; `dead` after the last attempt.
 */
export async function processWebhookEvent(job: JobRun<WebhookEventJobData>): Promise<void> {
  const data = job.data;
  const started = await startAttempt(data);
  if (!started) return;
  const { event, claims, conductors } = started;
  if (claims.length === 0) return; // ended `done` in startAttempt: no agent to wake
  await db
    .update(webhookEvents)
    .set({ status: WEBHOOK_EVENT_STATUS.processing, updatedAt: new Date() })
    .where(
      and(
        eventWhere(data),
        or(
          eq(webhookEvents.status, WEBHOOK_EVENT_STATUS.routed),
          eq(webhookEvents.status, WEBHOOK_EVENT_STATUS.processing),
        ),
      ),
    );
  const outcomes = await Promise.all(claims.map((c) => wakeAgent(event, c, conductors.get(c.agentId), job.signal)));
  const retry = outcomes.filter((o) => o.kind === "retry");
  const failed = outcomes.filter((o) => o.kind === "failed");
  if (retry.length > 0) {
    const reason = retry.map((o) => o.reason).join("; ");
    log.warn(
      { eventId: event.id, attempt: job.retryCount + 1, of: job.retryLimit + 1, reason },
      "webhook event attempt failed",
    );
    if (job.retryCount >= job.retryLimit)
      return markEventDead(data, `retries exhausted after ${job.retryCount + 1} attempts: ${reason}`);
    await db
      .update(webhookEvents)
      .set({ error: reason, updatedAt: new Date() })
      .where(and(eventWhere(data), unfinished));
    throw new Error(`webhook event ${event.id}: ${reason}`);
  }
  if (failed.length > 0)
    return setEventStatus(data, WEBHOOK_EVENT_STATUS.failed, failed.map((o) => o.reason).join("; "));
  return setEventStatus(data, WEBHOOK_EVENT_STATUS.done);
}
