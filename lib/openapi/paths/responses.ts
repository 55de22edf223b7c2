import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import {
  AddItemsInput,
  CreateConversationInput,
  CreateResponseInput,
  ItemListQuery,
  UpdateConversationInput,
} from "@/lib/protocols/responses/schemas";
import type { toConversation } from "@/lib/protocols/responses/conversation";
import type { toResponseObject } from "@/lib/protocols/responses/output";
import {
  deletedOf,
  describes,
  json,
  jsonOrEventStream,
  listOf,
  operation,
  pathParams,
  rateLimited,
  unixTime,
} from "../common/components";

/** A Responses item: a message, a function call or a function call's output (OpenAI's item shapes). */
const Item = z
  .object({
    id: z.string(),
    type: z.enum(["message", "function_call", "function_call_output"]),
    status: z.string(),
    role: z.string().optional(),
    content: z.array(z.record(z.string(), z.unknown())).optional(),
    call_id: z.string().optional(),
    name: z.string().optional(),
    arguments: z.string().optional(),
    output: z.string().optional(),
  })
  .meta({ description: "`message` (`input_text`/`output_text` parts), `function_call` or `function_call_output`" });

/** OpenAI's Responses and Conversations APIs (CONTRACT 9): a response is a run, a conversation a thread. */
export function registerResponsesPaths(r: OpenAPIRegistry) {
  const ResponseItem = r.register("ResponseItem", Item);
  const Response = r.register(
    "Response",
    describes<ReturnType<typeof toResponseObject>>()(
      z.object({
        id: z.string().meta({ example: "resp_…" }),
        object: z.literal("response"),
        created_at: unixTime(),
        status: z.enum(["queued", "in_progress", "completed", "incomplete", "failed", "cancelled"]),
        background: z.boolean(),
        error: z.object({ code: z.string(), message: z.string() }).nullable(),
        incomplete_details: z.object({ reason: z.string() }).nullable(),
        instructions: z.unknown(),
        max_output_tokens: z.unknown(),
        model: z.string().meta({ description: "The requested slug" }),
        output: z.array(ResponseItem),
        parallel_tool_calls: z.unknown(),
        previous_response_id: z.string().nullable(),
        conversation: z.object({ id: z.string() }).nullable().meta({ description: "The thread the response ran on" }),
        reasoning: z.object({ effort: z.null(), summary: z.null() }),
        store: z.unknown(),
        temperature: z.unknown(),
        text: z.object({ format: z.object({ type: z.string() }) }),
        tool_choice: z.unknown(),
        tools: z.unknown(),
        top_p: z.unknown(),
        truncation: z.string(),
        usage: z
          .object({
            input_tokens: z.number().int(),
            input_tokens_details: z.object({ cached_tokens: z.number().int() }),
            output_tokens: z.number().int(),
            output_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
            total_tokens: z.number().int(),
          })
          .nullable(),
        user: z.null(),
        metadata: z.unknown(),
        applied_rules: z.array(z.unknown()).meta({ description: "Guardrail rules that fired (extension)" }),
        cost_ot: z.number().meta({ description: "What the response was billed, in O₮ (extension)" }),
      }),
    ),
  );
  const Conversation = r.register(
    "Conversation",
    describes<ReturnType<typeof toConversation>>()(
      z.object({
        id: z.string().meta({ description: "The thread's id: the same conversation under /v1/threads" }),
        object: z.literal("conversation"),
        created_at: unixTime(),
        metadata: z.record(z.string(), z.unknown()),
      }),
    ),
  );
  const responseId = pathParams("responseId");
  const conversationId = pathParams("conversationId");
  const itemId = pathParams("conversationId", "itemId");

  operation(r, {
    method: "post",
    path: "/v1/responses",
    operationId: "createResponse",
    summary: "Create response",
    description:
      "A run on a conversation's thread: `conversation` appends to it, `previous_response_id` continues (and may fork) a chain, neither starts a thread with `source` `responses`. `store: false` keeps only the bill. JSON, or the semantic events with `stream: true`. Extensions as on runs: `profile_ids`, `use_kb`, `use_tools`.",
    tags: ["Responses"],
    scope: "chat",
    request: {
      body: {
        content: {
          "application/json": {
            schema: CreateResponseInput,
            example: { model: "local-chat-latest", input: "Hello" },
          },
        },
      },
    },
    ok: { 200: jsonOrEventStream("The response, or `response.*` events", Response, rateLimited) },
    errors: [400, 402, 404, 409, 413, 502],
  });
  operation(r, {
    method: "get",
    path: "/v1/responses/{responseId}",
    operationId: "getResponse",
    summary: "Retrieve response",
    tags: ["Responses"],
    scope: "chat",
    request: { params: responseId },
    ok: { 200: json("The stored response", Response, rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "delete",
    path: "/v1/responses/{responseId}",
    operationId: "deleteResponse",
    summary: "Delete response",
    tags: ["Responses"],
    scope: "chat",
    request: { params: responseId },
    ok: {
      200: json("Deleted with its input and output messages", deletedOf("response"), rateLimited),
    },
    errors: [404, 409],
  });
  operation(r, {
    method: "get",
    path: "/v1/responses/{responseId}/input_items",
    operationId: "listResponseInputItems",
    summary: "List response input items",
    tags: ["Responses"],
    scope: "chat",
    request: { params: responseId, query: ItemListQuery },
    ok: { 200: json("The items the response was given", listOf(ResponseItem), rateLimited) },
    errors: [404],
  });

  operation(r, {
    method: "post",
    path: "/v1/conversations",
    operationId: "createConversation",
    summary: "Create conversation",
    description: "A thread with `source` `conversations`, with up to 20 initial items.",
    tags: ["Conversations"],
    scope: "chat",
    request: { body: { required: false, content: { "application/json": { schema: CreateConversationInput } } } },
    ok: { 201: json("The conversation", Conversation, rateLimited) },
    errors: [400, 413],
  });
  operation(r, {
    method: "get",
    path: "/v1/conversations/{conversationId}",
    operationId: "getConversation",
    summary: "Retrieve conversation",
    tags: ["Conversations"],
    scope: "chat",
    request: { params: conversationId },
    ok: { 200: json("The conversation", Conversation, rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "post",
    path: "/v1/conversations/{conversationId}",
    operationId: "updateConversation",
    summary: "Update conversation",
    tags: ["Conversations"],
    scope: "chat",
    request: { params: conversationId, body: { content: { "application/json": { schema: UpdateConversationInput } } } },
    ok: { 200: json("The conversation with its new metadata", Conversation, rateLimited) },
    errors: [400, 404],
  });
  operation(r, {
    method: "delete",
    path: "/v1/conversations/{conversationId}",
    operationId: "deleteConversation",
    summary: "Delete conversation",
    description: "Deletes the thread with its messages and responses; the ledger keeps their bills.",
    tags: ["Conversations"],
    scope: "chat",
    request: { params: conversationId },
    ok: {
      200: json("Deleted", deletedOf("conversation.deleted"), rateLimited),
    },
    errors: [404, 409],
  });
  operation(r, {
    method: "get",
    path: "/v1/conversations/{conversationId}/items",
    operationId: "listConversationItems",
    summary: "List conversation items",
    tags: ["Conversations"],
    scope: "chat",
    request: { params: conversationId, query: ItemListQuery },
    ok: { 200: json("The thread's messages as items, newest first", listOf(ResponseItem), rateLimited) },
    errors: [400, 404],
  });
  operation(r, {
    method: "post",
    path: "/v1/conversations/{conversationId}/items",
    operationId: "createConversationItems",
    summary: "Create conversation items",
    tags: ["Conversations"],
    scope: "chat",
    request: { params: conversationId, body: { content: { "application/json": { schema: AddItemsInput } } } },
    ok: { 201: json("The added items, in order", listOf(ResponseItem), rateLimited) },
    errors: [400, 404, 409, 413],
  });
  operation(r, {
    method: "get",
    path: "/v1/conversations/{conversationId}/items/{itemId}",
    operationId: "getConversationItem",
    summary: "Retrieve conversation item",
    tags: ["Conversations"],
    scope: "chat",
    request: { params: itemId },
    ok: { 200: json("The item", ResponseItem, rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "delete",
    path: "/v1/conversations/{conversationId}/items/{itemId}",
    operationId: "deleteConversationItem",
    summary: "Delete conversation item",
    tags: ["Conversations"],
    scope: "chat",
    request: { params: itemId },
    ok: { 200: json("The conversation, as OpenAI answers", Conversation, rateLimited) },
    errors: [404, 409],
  });
}
