import "server-only";
import { and, eq, isNotNull } from "drizzle-orm";
import { db } from "@/db/client";
import { THREAD_SOURCE, type RunStatus } from "@/db/enums";
import { runs } from "@/db/schema";
import type { AuthContext } from "@/lib/auth/auth-context";
import { microToOt } from "@/lib/billing/money";
import { AppError } from "@/lib/errors";
import { eventStreamResponse } from "@/lib/http/event-stream";
import { jsonResponse } from "@/lib/http/json-response";
import { toErrorBodyForStream } from "@/lib/http/stream-error";
import { newId } from "@/lib/ids";
import { peekResolvedModel, resolveModel } from "@/lib/models";
import type { RunContext } from "@/lib/runs/context";
import { executeRun, streamRun, type ProtocolFields, type RunCall, type RunStreamFormat } from "@/lib/runs/create-run";
import type { RunInput } from "@/lib/runs/schemas";
import { createThread } from "@/lib/threads/create-thread";
import { getThreadInCompany } from "@/lib/threads/internal";
import { splitToolChoice, toChatMessages, toClientTools } from "./input";
import { functionCallItem, outputTextItem, toResponseObject, type ResponseObject } from "./output";
import type { CreateResponseInput } from "./schemas";
import { responseEvents } from "./stream-events";

/** One `POST /v1/responses` as the route hands it over. */
export interface ResponseCall {
  auth: AuthContext;
  input: CreateResponseInput;
  signal: AbortSignal;
  admitted: Promise<void>;
}

const previousNotFound = (id: string) =>
  new AppError("not_found", `Previous response with id '${id}' not found.`, {
    param: "previous_response_id",
    wireCode: "previous_response_not_found",
  });

/**
 * Where the response runs. `previous_response_id`: on that response's thread, its history the
 * chain's messages; `conversation`: on that thread, its history the whole thread; neither: a new
 * thread (`source` responses). `store: false` writes nothing but the bill (no thread is made).
 */
async function threadMode(
  companyId: string,
  input: CreateResponseInput,
  admitted: Promise<void>,
): Promise<ProtocolFields & { threadId: string }> {
  const ephemeral = input.store === false;
  if (input.previous_response_id && input.conversation)
    throw new AppError("invalid_request", "Use either previous_response_id or conversation, not both.", {
      param: "conversation",
    });
  if (input.previous_response_id) {
    const [prev] = await db
      .select({ id: runs.id, threadId: runs.threadId })
      .from(runs)
      .where(and(eq(runs.id, input.previous_response_id), eq(runs.companyId, companyId), isNotNull(runs.request)))
      .limit(1);
    if (!prev) throw previousNotFound(input.previous_response_id);
    return {
      threadId: prev.threadId,
      previousRunId: prev.id,
      persistent: !ephemeral,
      ephemeral,
      source: THREAD_SOURCE.responses,
    };
  }
  if (input.conversation) {
    if (ephemeral)
      throw new AppError("invalid_request", "A response in a conversation is stored: store cannot be false.", {
        param: "store",
      });
    const id = typeof input.conversation === "string" ? input.conversation : input.conversation.id;
    const thread = await getThreadInCompany(db, { companyId, threadId: id });
    return { threadId: thread.id, persistent: true, source: thread.source };
  }
  if (ephemeral) return { threadId: newId("thread"), persistent: false, ephemeral, source: THREAD_SOURCE.responses };
  // Answered only once stored, its thread is known to nobody before: the run's final statement makes it.
  if (!input.stream)
    return { threadId: newId("thread"), persistent: true, newThread: true, source: THREAD_SOURCE.responses };
  // A stream names its thread in its first event, while the run is active: the thread is made
  // first, its claim visible. Its first side effect: only once the rate limiter admitted the call.
  await admitted;
  const thread = await createThread(db, { companyId, input: { metadata: {} }, source: THREAD_SOURCE.responses });
  return { threadId: thread.id, persistent: true, source: THREAD_SOURCE.responses };
}

/** The request fields a response echoes when the client set them. */
const ECHOED = [
  "instructions",
  "max_output_tokens",
  "temperature",
  "top_p",
  "tool_choice",
  "parallel_tool_calls",
  "metadata",
] as const;

/**
 * The request fields a response echoes, stored with its run (runs.request): only those the client
 * set, so the common call stores a few bytes; toResponseObject fills in the defaults on read.
 */
function requestEcho(input: CreateResponseInput, answerMessageId: string): Record<string, unknown> {
  const echo: Record<string, unknown> = { answer_message_id: answerMessageId };
  for (const key of ECHOED) if (input[key] != null) echo[key] = input[key];
  const tools = (input.tools ?? []).filter((t) => t.type === "function");
  if (tools.length) echo.tools = tools;
  if (input.store === false) echo.store = false;
  return echo;
}

/** The run call a response makes: RunInput's fields plus its thread mode, input and own tools. */
async function toRunCall(call: ResponseCall): Promise<RunCall> {
  const { input, auth } = call;
  const { instructions, messages } = toChatMessages(input.input);
  const clientTools = toClientTools(input.tools);
  // Refused before a thread is made for it; the run takes this resolution.
  const which = { companyId: auth.companyId, slug: input.model };
  const model = peekResolvedModel(which) ?? (await resolveModel(which));
  if (clientTools.length && !model.model.supportsTools)
    throw new AppError("invalid_request", `The model '${input.model}' does not support tools`, {
      param: "tools",
      wireCode: "tools_not_supported",
    });
  if (messages.length === 0 && !input.previous_response_id && !input.conversation)
    throw new AppError("invalid_request", "input: at least one message is required", { param: "input" });
  const mode = await threadMode(auth.companyId, input, call.admitted);
  const { toolChoice, runToolChoice } = splitToolChoice(input.tool_choice, clientTools);
  const runId = newId("response");
  const answerMessageId = newId("message");
  const runInput: RunInput = {
    model: input.model,
    stream: input.stream === true,
    profile_ids: input.profile_ids,
    use_kb: input.use_kb,
    use_tools: input.use_tools,
    tool_choice: runToolChoice,
    temperature: input.temperature,
    top_p: input.top_p,
    max_completion_tokens: input.max_output_tokens,
  };
  const { threadId, ...fields } = mode;
  return {
    auth,
    threadId,
    input: runInput,
    signal: call.signal,
    admitted: call.admitted,
    runId,
    model,
    protocol: {
      ...fields,
      clientTools: clientTools.length > 0,
      answerMessageId,
      requestEcho: requestEcho(input, answerMessageId),
      // The request's instructions first, then its system/developer messages (after the profiles').
      instructions: [...(input.instructions?.trim() ? [input.instructions] : []), ...instructions],
      messages,
      inputMessages: messages,
      ...(clientTools.length ? { tools: clientTools, toolChoice } : {}),
    },
  };
}

/** A response object from the run's context (no read back). */
function responseFromContext(ctx: RunContext, status: RunStatus | "in_progress", createdAt: number): ResponseObject {
  const messageId = ctx.answerMessageId!;
  const ended = status !== "in_progress";
  const calls = ended && ctx.clientTools ? ctx.toolCalls : [];
  return toResponseObject({
    id: ctx.runId,
    createdAt,
    status,
    finishReason: ctx.finishReason || null,
    model: ctx.requestedModel,
    error: ended ? (ctx.error ?? null) : null,
    usage: ended ? ctx.usage : null,
    costOt: ended ? microToOt(ctx.costMicro) : 0,
    appliedRules: ctx.appliedRules,
    output: ended
      ? [
          ...(ctx.content ? [outputTextItem(messageId, ctx.content)] : []),
          ...calls.map((c, i) => functionCallItem(messageId, i, c)),
        ]
      : [],
    previousResponseId: ctx.previousRunId ?? null,
    // Stored, it ran on a thread, readable as a conversation (the steps route takes its id).
    conversationId: ctx.persistent ? ctx.threadId : null,
    request: ctx.requestEcho ?? {},
  });
}

/** Responses' semantic events for a streaming run (lib/runs/create-run.ts streamRun). */
function responseStream(createdAt: number): RunStreamFormat {
  let events: ReturnType<typeof responseEvents> | undefined;
  const of = (ctx: RunContext) => (events ??= responseEvents(ctx.answerMessageId!));
  const sendAll = (out: { send(data: unknown): void }, list: unknown[]) => list.forEach((e) => out.send(e));
  return {
    start: (ctx, out) => sendAll(out, of(ctx).start(responseFromContext(ctx, "in_progress", createdAt))),
    delta: (ctx, text, out) => sendAll(out, of(ctx).delta(text)),
    end: (ctx, status, out) => {
      const response = responseFromContext(ctx, status, createdAt);
      sendAll(out, of(ctx).end(response, ctx.clientTools ? ctx.toolCalls : []));
    },
    error: (ctx, err, out) => {
      const { error } = toErrorBodyForStream(err);
      const response = responseFromContext(ctx, "failed", createdAt);
      sendAll(
        out,
        of(ctx).failed({ ...response, error: { code: error.code ?? "server_error", message: error.message } }),
      );
    },
  };
}

/** `POST /v1/responses` (`req`): the response object, or its event stream when `stream` is set. */
export async function answerResponse(call: ResponseCall, req: Request): Promise<Response> {
  const createdAt = Math.floor(Date.now() / 1000);
  const runCall = await toRunCall(call);
  if (!call.input.stream) {
    const { ctx, status } = await executeRun(runCall);
    return jsonResponse(req, responseFromContext(ctx, status, createdAt));
  }
  const { body } = await streamRun(runCall, responseStream(createdAt));
  return eventStreamResponse(req, body);
}
