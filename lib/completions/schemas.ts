import { z } from "zod";
import { ContentPartInput } from "@/lib/threads/content-part-input";

/** Image parts arrive inline as data: URIs, so completions take larger bodies than other routes. */
export const COMPLETION_BODY_LIMIT = 32 * 1024 * 1024;

const Part = ContentPartInput;

const ToolCallSchema = z.object({
  id: z.string().max(200),
  type: z.literal("function"),
  function: z.object({ name: z.string().max(200), arguments: z.string() }),
});

/** Roles are preserved as given (SPEC); content is a string, parts, or null for tool-calling turns. */
const Message = z
  .object({
    role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
    content: z.union([z.string(), z.array(Part).min(1), z.null()]).optional(),
    name: z.string().max(200).optional(),
    tool_calls: z.array(ToolCallSchema).optional(),
    tool_call_id: z.string().max(200).optional(),
    refusal: z.string().nullish(),
  })
  .strict()
  .refine((m) => m.content != null || (m.role === "assistant" && m.tool_calls?.length), {
    message: "content is required (it may be null only for an assistant message with tool_calls)",
    path: ["content"],
  })
  .refine((m) => m.role !== "tool" || m.tool_call_id, {
    message: "tool messages need tool_call_id",
    path: ["tool_call_id"],
  });

const Tool = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1-64 letters, digits, _ or -"),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});

const ToolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.object({ type: z.literal("function"), function: z.object({ name: z.string() }) }),
]);

/**
 * POST /v1/chat/completions. Unknown fields are refused as OpenAI does ("Unrecognized request
 * argument"), but every field the official SDKs, the Vercel AI SDK and LangChain send is known.
 */
export const ChatCompletionInput = z.strictObject({
  model: z.string().min(1).max(200),
  messages: z.array(Message).min(1).max(10_000),
  stream: z.boolean().nullish(),
  stream_options: z
    .strictObject({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() })
    .nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  n: z.literal(1, { message: "only n=1 is supported" }).nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  seed: z.number().int().nullish(),
  user: z.string().max(256).nullish(),
  response_format: z
    .object({
      type: z.enum(["text", "json_object", "json_schema"]),
      json_schema: z.record(z.string(), z.unknown()).optional(),
    })
    .nullish(),
  tools: z.array(Tool).max(128).nullish(),
  tool_choice: ToolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  logit_bias: z.record(z.string(), z.number()).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  reasoning_effort: z.enum(["minimal", "low", "medium", "high"]).nullish(),
  verbosity: z.enum(["low", "medium", "high"]).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  store: z.boolean().nullish(),
  service_tier: z.string().nullish(),
  prompt_cache_key: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  /** Extension (CONTRACT 5.9): profiles to compose, in order, instead of the company's default. */
  profile_ids: z.array(z.uuid()).max(20).optional(),
});
export type ChatCompletionInput = z.infer<typeof ChatCompletionInput>;

/** Request fields forwarded to the provider as given (when set). The output cap is not one: see the run context's maxOutputTokens. */
export const PASS_THROUGH = [
  "temperature",
  "top_p",
  "stop",
  "seed",
  "user",
  "response_format",
  "parallel_tool_calls",
  "presence_penalty",
  "frequency_penalty",
  "logit_bias",
  "logprobs",
  "top_logprobs",
  "reasoning_effort",
  "verbosity",
] as const;
