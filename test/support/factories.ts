import "server-only";
import { eq } from "drizzle-orm";
import { RUN_STATUS, SCOPES, type RunStatus, type Scope, type ThreadSource } from "@/db/enums";
import { knowledgeCollections, messages, runs, tools } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { createAgent } from "@/lib/agents";
import { grantCredits, otToMicro } from "@/lib/billing";
import { createCompany } from "@/lib/companies";
import { createKey } from "@/lib/keys";
import { createProfile, CreateProfileInput } from "@/lib/profiles";
import type { RunStep } from "@/lib/runs";
import { addMessages, createThread, CreateThreadInput, type MessageInput } from "@/lib/threads";
import { createUser } from "@/lib/users";
import { createWebhook, triggerPath } from "@/lib/webhooks";
import { newId, randomBase62 } from "@/lib/ids";

/** Test data builders: every suite makes its own company, so suites never share rows. */
export async function makeCompany(db: DbOrTx, args: { name?: string; creditsOt?: number } = {}) {
  const company = await createCompany(db, { name: args.name ?? `Test Co ${randomBase62(6)}` });
  if (args.creditsOt) {
    await grantCredits(db, {
      companyId: company.id,
      amountMicro: otToMicro(args.creditsOt),
      entry: { source: "test" },
    });
  }
  return company;
}

export async function makeKey(
  db: DbOrTx,
  args: { companyId: string; scopes?: Scope[]; rateLimitPerMinute?: number; expiresAt?: Date | null; name?: string },
) {
  return createKey(db, {
    companyId: args.companyId,
    name: args.name ?? "test key",
    scopes: args.scopes ?? [...SCOPES],
    rateLimitPerMinute: args.rateLimitPerMinute ?? 10_000,
    expiresAt: args.expiresAt ?? null,
  });
}

export async function makeUser(db: DbOrTx, args: { companyId: string; email?: string; password?: string }) {
  const password = args.password ?? `pw-${randomBase62(12)}`;
  const user = await createUser(db, {
    companyId: args.companyId,
    email: args.email ?? `u-${randomBase62(8)}@example.test`,
    password,
  });
  return { user, password };
}

export async function makeThread(
  db: DbOrTx,
  args: { companyId: string; source?: ThreadSource; messages?: MessageInput[]; metadata?: Record<string, unknown> },
) {
  const input = CreateThreadInput.parse({ metadata: args.metadata ?? {}, messages: args.messages });
  return createThread(db, { companyId: args.companyId, input, source: args.source });
}

/**
 * A finished run stored as the runs pipeline stores one (row with its steps), without running
 * anything; with `answer`, the assistant message it added, linked by run_id.
 */
export async function makeRun(
  db: DbOrTx,
  args: {
    companyId: string;
    threadId: string;
    model?: string;
    status?: RunStatus;
    steps?: RunStep[];
    answer?: string;
    costOt?: number;
    latencyMs?: number;
    promptTokens?: number;
    completionTokens?: number;
    error?: { code: string; message: string };
    createdAt?: Date;
  },
) {
  const createdAt = args.createdAt ?? new Date();
  const latencyMs = args.latencyMs ?? 120;
  const [run] = await db
    .insert(runs)
    .values({
      id: newId("run"),
      companyId: args.companyId,
      threadId: args.threadId,
      model: args.model ?? "local-mini",
      status: args.status ?? RUN_STATUS.completed,
      promptTokens: args.promptTokens ?? 12,
      completionTokens: args.completionTokens ?? 5,
      costMicro: otToMicro(args.costOt ?? 0.25),
      latencyMs,
      error: args.error ?? null,
      steps: args.steps ?? [],
      createdAt,
      completedAt: new Date(createdAt.getTime() + latencyMs),
    })
    .returning();
  if (args.answer !== undefined) {
    const [message] = await addMessages(db, {
      companyId: args.companyId,
      threadId: args.threadId,
      messages: [{ role: "assistant", content: args.answer }],
    });
    await db.update(messages).set({ runId: run!.id }).where(eq(messages.id, message!.id));
  }
  return run!;
}

/**
 * A tool row written straight to the database: the code is not checked in the sandbox, so suites
 * that only need a tool to exist (profiles' `allowed_tool_names`) do not depend on it.
 */
export async function makeTool(
  db: DbOrTx,
  args: { companyId: string; name?: string; code?: string; jsonSchema?: Record<string, unknown>; isActive?: boolean },
) {
  const name = args.name ?? `tool_${randomBase62(8)}`;
  const [row] = await db
    .insert(tools)
    .values({
      id: newId("tool"),
      companyId: args.companyId,
      name,
      description: `Test tool ${name}`,
      jsonSchema: args.jsonSchema ?? { type: "object", properties: {} },
      pythonCode: args.code ?? `def ${name}():\n    return "ok"\n`,
      isActive: args.isActive ?? true,
    })
    .returning();
  return row!;
}

/** An active knowledge collection (profiles' `knowledge_base_ids` must name one). */
export async function makeCollection(db: DbOrTx, args: { companyId: string; name?: string; isActive?: boolean }) {
  const [row] = await db
    .insert(knowledgeCollections)
    .values({
      id: newId("knowledgeCollection"),
      companyId: args.companyId,
      name: args.name ?? `Collection ${randomBase62(6)}`,
      isActive: args.isActive ?? true,
    })
    .returning();
  return row!;
}

/**
 * An agent woken by a webhook: a conductor profile on `model`, subscribed to `topics` (default
 * `orders.*`), and its webhook. Returns the agent's id and the trigger's path.
 */
export async function makeWebhookAgent(
  db: DbOrTx,
  args: { companyId: string; model?: string; topics?: string[]; name?: string },
) {
  const { companyId } = args;
  const profile = await createProfile(db, {
    companyId,
    input: CreateProfileInput.parse({ name: "Conductor", model_slug: args.model ?? "gpt-4o-mini" }),
  });
  const agent = await createAgent(db, {
    companyId,
    input: { name: args.name ?? "Orders", conductor_profile_id: profile.id, topics: args.topics ?? ["orders.*"] },
  });
  const { secret } = await createWebhook(db, { companyId, agentId: agent.id });
  return { agentId: agent.id, url: triggerPath(companyId, secret) };
}
