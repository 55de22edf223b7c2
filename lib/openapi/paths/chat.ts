import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { MODEL_STATUSES } from "@/db/enums";
import { ChatCompletionInput } from "@/lib/completions/schemas";
import type { toChatCompletion } from "@/lib/completions/wire";
import { EmbeddingsInput } from "@/lib/embeddings/schemas";
import type { toEmbeddingList } from "@/lib/embeddings/to-wire";
import type { toPublicModel } from "@/lib/models/to-public-model";
import {
  describes,
  json,
  jsonOrEventStream,
  operation,
  pathParams,
  plainListOf,
  rateLimited,
} from "../common/components";

const Usage = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().int() }),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
});

const ToolCall = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

/** OpenAI's chat completions, embeddings and models (CONTRACT 5.9, 7, 9). */
export function registerChatPaths(r: OpenAPIRegistry) {
  const ChatCompletion = r.register(
    "ChatCompletion",
    describes<ReturnType<typeof toChatCompletion>>()(
      z.object({
        id: z.string().meta({ example: "chatcmpl-…" }),
        object: z.literal("chat.completion"),
        created: z.number().int(),
        model: z.string().meta({ description: "The requested slug" }),
        system_fingerprint: z.null(),
        choices: z.array(
          z.object({
            index: z.number().int(),
            message: z.object({
              role: z.literal("assistant"),
              content: z.string().nullable(),
              refusal: z.null(),
              tool_calls: z.array(ToolCall).optional(),
            }),
            logprobs: z.null(),
            finish_reason: z.string().meta({ example: "stop" }),
          }),
        ),
        usage: Usage,
        applied_rules: z.array(z.record(z.string(), z.unknown())).optional(),
        citations: z.array(z.record(z.string(), z.unknown())).optional(),
      }),
    ),
  );
  const EmbeddingList = r.register(
    "EmbeddingList",
    describes<ReturnType<typeof toEmbeddingList>>()(
      z.object({
        object: z.literal("list"),
        data: z.array(
          z.object({
            object: z.literal("embedding"),
            index: z.number().int(),
            embedding: z
              .union([z.array(z.number()), z.string()])
              .meta({ description: "Floats, or base64 of little-endian float32 with `encoding_format: base64`" }),
          }),
        ),
        model: z.string(),
        usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
      }),
    ),
  );
  const Price = z.number().meta({ description: "O₮ per 1M tokens" });
  const Model = r.register(
    "Model",
    describes<ReturnType<typeof toPublicModel>>()(
      z.object({
        id: z.string().meta({ example: "local-chat-latest" }),
        object: z.literal("model"),
        created: z.number().int(),
        owned_by: z.string().meta({ description: "The provider group" }),
        status: z.enum(MODEL_STATUSES),
        recommended: z.boolean(),
        replacement: z.string().nullable(),
        context_window: z.number().int().nullable(),
        modalities: z.array(z.string()),
        supports_tools: z.boolean(),
        pricing: z.object({ unit: z.string(), input: Price, cached_input: Price, output: Price }),
        description: z.string().nullable(),
        development: z.boolean().meta({ description: "An offline, deterministic `local` model" }),
        type: z.enum(["chat", "embedding"]),
        dimensions: z.number().int().optional(),
        supports_dimensions: z.boolean().optional(),
      }),
    ),
  );

  operation(r, {
    method: "post",
    path: "/v1/chat/completions",
    operationId: "createChatCompletion",
    summary: "Create chat completion",
    description:
      "OpenAI's chat completions, JSON or SSE (`stream: true`, `stream_options.include_usage`). Runs with the company's default profile (or `profile_ids`), guardrails and retrieval; billed once.",
    tags: ["Chat"],
    scope: "chat",
    request: {
      body: {
        content: {
          "application/json": {
            schema: ChatCompletionInput,
            example: { model: "local-chat-latest", messages: [{ role: "user", content: "Hello" }] },
          },
        },
      },
    },
    ok: { 200: jsonOrEventStream("The completion, or `chat.completion.chunk` frames", ChatCompletion, rateLimited) },
    errors: [400, 402, 404, 413, 502],
  });
  operation(r, {
    method: "post",
    path: "/v1/embeddings",
    operationId: "createEmbeddings",
    summary: "Create embeddings",
    tags: ["Embeddings"],
    scope: "chat",
    request: {
      body: {
        content: {
          "application/json": { schema: EmbeddingsInput, example: { model: "local-embedding", input: "Hello" } },
        },
      },
    },
    ok: { 200: json("One vector per input, in input order", EmbeddingList, rateLimited) },
    errors: [400, 402, 404, 413, 502],
  });
  operation(r, {
    method: "get",
    path: "/v1/models",
    operationId: "listModels",
    summary: "List models",
    tags: ["Model catalog"],
    scope: "chat",
    ok: { 200: json("The catalog with the company's overrides and prices", plainListOf(Model), rateLimited) },
  });
  operation(r, {
    method: "get",
    path: "/v1/models/{model}",
    operationId: "getModel",
    summary: "Retrieve model",
    tags: ["Model catalog"],
    scope: "chat",
    request: { params: pathParams("model") },
    ok: { 200: json("The model", Model, rateLimited) },
    errors: [404],
  });
}
