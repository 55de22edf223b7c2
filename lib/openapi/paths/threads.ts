import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { RUN_STATUSES, THREAD_SOURCES } from "@/db/enums";
import { PageQuery } from "@/lib/pagination";
import type { toPublicRun, toPublicStep } from "@/lib/runs/to-public";
import { RunInput, StepListQuery } from "@/lib/runs/schemas";
import {
  BulkMessagesInput,
  CreateThreadInput,
  MessageInput,
  MessageListQuery,
  ThreadListQuery,
} from "@/lib/threads/schemas";
import type { toPublicMessage, toPublicThread } from "@/lib/threads/to-public";
import {
  describes,
  json,
  jsonOrEventStream,
  listOf,
  operation,
  pathParams,
  rateLimited,
  unixTime,
} from "../common/components";

/** Threads, their messages, runs and run steps (SPEC, CONTRACT 5.1, 5.6, 6). */
export function registerThreadPaths(r: OpenAPIRegistry) {
  const tags = ["Threads"];
  const runTags = ["Runs"];
  const Thread = r.register(
    "Thread",
    describes<ReturnType<typeof toPublicThread>>()(
      z.object({
        id: z.string().meta({ example: "thread_…" }),
        object: z.literal("thread"),
        created_at: unixTime(),
        metadata: z.record(z.string(), z.unknown()),
        source: z.enum(THREAD_SOURCES),
      }),
    ),
  );
  const Message = r.register(
    "Message",
    describes<ReturnType<typeof toPublicMessage>>()(
      z.object({
        id: z.string().meta({ example: "msg_…" }),
        object: z.literal("thread.message"),
        thread_id: z.string(),
        role: z.string(),
        content: z
          .union([z.string(), z.array(z.record(z.string(), z.unknown()))])
          .meta({ description: "A string or content parts; a stored data: image appears as its digest" }),
        created_at: unixTime(),
        run_id: z.string().nullable(),
      }),
    ),
  );
  const Run = r.register(
    "Run",
    describes<ReturnType<typeof toPublicRun>>()(
      z.object({
        id: z.string().meta({ example: "run_…" }),
        object: z.literal("thread.run"),
        thread_id: z.string(),
        model: z.string(),
        status: z.enum(RUN_STATUSES),
        content: z.string().meta({ description: "The assistant message the run added" }),
        usage: z.object({
          prompt_tokens: z.number().int(),
          completion_tokens: z.number().int(),
          total_tokens: z.number().int(),
          cached_tokens: z.number().int(),
        }),
        tool_calls: z.array(z.object({ name: z.string().optional(), args: z.unknown(), result: z.unknown() })),
        applied_rules: z.array(
          z.object({ id: z.string(), name: z.string(), action: z.string(), stage: z.string() }).partial(),
        ),
        citations: z.array(z.record(z.string(), z.unknown())),
        latency_ms: z.number(),
        cost_ot: z.number().meta({ description: "O₮ billed for the run" }),
        error: z.object({ code: z.string(), message: z.string() }).partial().nullable(),
        created_at: unixTime(),
        completed_at: unixTime().nullable(),
      }),
    ),
  );
  const RunStep = r.register(
    "RunStep",
    describes<ReturnType<typeof toPublicStep>>()(
      z.object({
        id: z.string(),
        object: z.literal("run.step"),
        type: z.enum(["profiles", "guardrail", "multimodal", "history", "retrieval", "model_call", "tool_call"]),
        started_at: unixTime(),
        offset_ms: z.number(),
        duration_ms: z.number(),
        detail: z.record(z.string(), z.unknown()),
      }),
    ),
  );
  const thread = pathParams("threadId");
  const run = pathParams("threadId", "runId");

  operation(r, {
    method: "get",
    path: "/v1/threads",
    operationId: "listThreads",
    summary: "List threads",
    tags,
    scope: "chat",
    request: { query: ThreadListQuery },
    ok: { 200: json("The company's threads, newest first", listOf(Thread), rateLimited) },
    errors: [400],
  });
  operation(r, {
    method: "post",
    path: "/v1/threads",
    operationId: "createThread",
    summary: "Create thread",
    tags,
    scope: "chat",
    request: { body: { required: false, content: { "application/json": { schema: CreateThreadInput } } } },
    ok: { 201: json("The new thread", Thread, rateLimited) },
    errors: [400, 413],
  });
  operation(r, {
    method: "get",
    path: "/v1/threads/{threadId}",
    operationId: "getThread",
    summary: "Retrieve thread",
    tags,
    scope: "chat",
    request: { params: thread },
    ok: { 200: json("The thread", Thread, rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "get",
    path: "/v1/threads/{threadId}/messages",
    operationId: "listMessages",
    summary: "List messages",
    tags,
    scope: "chat",
    request: { params: thread, query: MessageListQuery },
    ok: { 200: json("The thread's messages", listOf(Message), rateLimited) },
    errors: [400, 404],
  });
  operation(r, {
    method: "post",
    path: "/v1/threads/{threadId}/messages",
    operationId: "createMessage",
    summary: "Create message",
    tags,
    scope: "chat",
    request: { params: thread, body: { content: { "application/json": { schema: MessageInput } } } },
    ok: { 201: json("The stored message", Message, rateLimited) },
    errors: [400, 404, 409, 413],
  });
  operation(r, {
    method: "post",
    path: "/v1/threads/{threadId}/messages/bulk",
    operationId: "createMessages",
    summary: "Create messages in bulk",
    description: "1 to 100 messages, stored in order, all or none.",
    tags,
    scope: "chat",
    request: { params: thread, body: { content: { "application/json": { schema: BulkMessagesInput } } } },
    ok: { 201: json("The stored messages, in order", listOf(Message), rateLimited) },
    errors: [400, 404, 409, 413],
  });
  operation(r, {
    method: "get",
    path: "/v1/threads/{threadId}/runs",
    operationId: "listRuns",
    summary: "List runs",
    tags: runTags,
    scope: "chat",
    request: { params: thread, query: PageQuery },
    ok: { 200: json("The thread's runs, newest first", listOf(Run), rateLimited) },
    errors: [400, 404],
  });
  operation(r, {
    method: "post",
    path: "/v1/threads/{threadId}/runs",
    operationId: "createRun",
    summary: "Create run",
    description:
      "Runs the thread with its history through the pipeline (profiles, guardrails, retrieval, tools) and bills the company. With `stream: true` the answer is SSE frames.",
    tags: runTags,
    scope: "chat",
    request: {
      params: thread,
      body: { content: { "application/json": { schema: RunInput, example: { model: "local-chat-latest" } } } },
    },
    ok: { 200: jsonOrEventStream("The finished run, or its frames (`x-run-id` names it)", Run, rateLimited) },
    errors: [400, 402, 404, 409, 413, 502],
  });
  operation(r, {
    method: "get",
    path: "/v1/threads/{threadId}/runs/{runId}",
    operationId: "getRun",
    summary: "Retrieve run",
    tags: runTags,
    scope: "chat",
    request: { params: run },
    ok: { 200: json("The run", Run, rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "post",
    path: "/v1/threads/{threadId}/runs/{runId}/cancel",
    operationId: "cancelRun",
    summary: "Cancel run",
    tags: runTags,
    scope: "chat",
    request: { params: run },
    ok: { 200: json("The run, `cancelled`", Run, rateLimited) },
    errors: [404, 409],
  });
  operation(r, {
    method: "get",
    path: "/v1/threads/{threadId}/runs/{runId}/steps",
    operationId: "listRunSteps",
    summary: "List run steps",
    tags: runTags,
    scope: "chat",
    request: { params: run, query: StepListQuery },
    ok: { 200: json("The run's steps, in order", listOf(RunStep), rateLimited) },
    errors: [400, 404],
  });
}
