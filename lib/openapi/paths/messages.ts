import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import type { anthropicErrorBody } from "@/lib/protocols/anthropic/errors";
import { CountTokensInput, MessagesInput } from "@/lib/protocols/anthropic/schemas";
import type { toAnthropicMessage } from "@/lib/protocols/anthropic/to-message";
import { describes, operation } from "../common/components";

/** Anthropic's error statuses on these routes, with their `error.type`. */
const ANTHROPIC_ERRORS: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  502: "api_error",
};

/** Anthropic's Messages API (CONTRACT 9): Bearer or `x-api-key`, Anthropic's bodies and errors. */
export function registerMessagesPaths(r: OpenAPIRegistry) {
  const AnthropicError = r.register(
    "AnthropicError",
    describes<ReturnType<typeof anthropicErrorBody>>()(
      z.object({
        type: z.literal("error"),
        error: z.object({ type: z.string().meta({ example: "billing_error" }), message: z.string() }),
        request_id: z.string().optional(),
      }),
    ),
  );
  const Message = r.register(
    "AnthropicMessage",
    describes<ReturnType<typeof toAnthropicMessage>>()(
      z.object({
        id: z.string().meta({ example: "msg_…" }),
        type: z.literal("message"),
        role: z.literal("assistant"),
        model: z.string().meta({ description: "The requested slug" }),
        content: z.array(
          z.union([
            z.object({ type: z.literal("text"), text: z.string() }),
            z.object({
              type: z.literal("tool_use"),
              id: z.string(),
              name: z.string(),
              input: z.record(z.string(), z.unknown()),
            }),
          ]),
        ),
        stop_reason: z.enum(["end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal"]),
        stop_sequence: z.string().nullable(),
        usage: z.object({
          input_tokens: z.number().int(),
          output_tokens: z.number().int(),
          cache_read_input_tokens: z.number().int(),
          cache_creation_input_tokens: z.number().int(),
        }),
        applied_rules: z.array(z.record(z.string(), z.unknown())).optional(),
      }),
    ),
  );
  const errorResponse = (status: number) => ({
    description: `Anthropic's error body, \`error.type\` \`${ANTHROPIC_ERRORS[status] ?? "api_error"}\``,
    content: { "application/json": { schema: AnthropicError } },
  });
  const headers = [
    { name: "anthropic-version", in: "header" as const, required: false, schema: { type: "string" as const } },
    { name: "anthropic-beta", in: "header" as const, required: false, schema: { type: "string" as const } },
  ];

  operation(r, {
    method: "post",
    path: "/v1/messages",
    operationId: "createAnthropicMessage",
    summary: "Create message (Anthropic)",
    description:
      "Anthropic's Messages API on any catalog model, translated to its provider and back (tool calls both ways). JSON, or Anthropic's stream events with `stream: true`. A throwaway thread with `source` `messages`, billed like a chat completion.",
    tags: ["Anthropic Messages"],
    scope: "chat",
    auth: "apiKey",
    parameters: headers,
    request: {
      body: {
        content: {
          "application/json": {
            schema: MessagesInput,
            example: { model: "local-chat-latest", max_tokens: 256, messages: [{ role: "user", content: "Hello" }] },
          },
        },
      },
    },
    ok: {
      200: {
        description: "The message, or `message_start` … `message_stop` events",
        content: {
          "application/json": { schema: Message },
          "text/event-stream": { schema: { type: "string", description: "`event: <type>` + `data: <json>` frames" } },
        },
      },
    },
    errors: [400, 402, 404, 413, 502],
    errorResponse,
  });
  operation(r, {
    method: "post",
    path: "/v1/messages/count_tokens",
    operationId: "countAnthropicMessageTokens",
    summary: "Count message tokens (Anthropic)",
    description: "The input tokens a `POST /v1/messages` with this prompt would send. Free.",
    tags: ["Anthropic Messages"],
    scope: "chat",
    auth: "apiKey",
    parameters: headers,
    request: { body: { content: { "application/json": { schema: CountTokensInput } } } },
    ok: {
      200: {
        description: "The count",
        content: { "application/json": { schema: z.object({ input_tokens: z.number().int() }) } },
      },
    },
    errors: [400, 404],
    errorResponse,
  });
}
