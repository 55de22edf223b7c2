import { z } from "zod";

/**
 * Anthropic Messages request bodies (https://docs.anthropic.com/en/api/messages). Objects are loose:
 * clients such as Claude Code send fields and block types we cannot honour (`thinking`,
 * `cache_control`, `context_management`, server tools); those are accepted and ignored. The
 * blocks we translate are checked field by field, so a malformed one is still a 400.
 */

const TextBlock = z.looseObject({ type: z.literal("text"), text: z.string() });

const ImageSource = z.union([
  z.looseObject({ type: z.literal("base64"), media_type: z.string().min(1).max(100), data: z.string().min(1) }),
  z.looseObject({ type: z.literal("url"), url: z.string().min(1).max(8192) }),
  // Other sources (a Files API `file_id`) are not ours to resolve: ignored.
  z.looseObject({ type: z.string().refine((t) => t !== "base64" && t !== "url") }),
]);

const ImageBlock = z.looseObject({ type: z.literal("image"), source: ImageSource });

const ToolUseBlock = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  input: z.unknown(),
});

/** A tool result's content: a string, or text and image blocks (others ignored). */
const ToolResultBlock = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string().min(1).max(200),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  is_error: z.boolean().nullish(),
});

const KNOWN_BLOCKS: Record<string, z.ZodType> = {
  text: TextBlock,
  image: ImageBlock,
  tool_use: ToolUseBlock,
  tool_result: ToolResultBlock,
};

/** Any block with a `type`; the ones we translate must be well formed. */
const Block = z.looseObject({ type: z.string().min(1).max(100) }).superRefine((block, ctx) => {
  const schema = KNOWN_BLOCKS[block.type];
  if (!schema) return;
  const parsed = schema.safeParse(block);
  if (parsed.success) return;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
});

export type TextBlock = z.infer<typeof TextBlock>;
export type ImageBlock = z.infer<typeof ImageBlock>;
export type ToolUseBlock = z.infer<typeof ToolUseBlock>;
export type ToolResultBlock = z.infer<typeof ToolResultBlock>;
export type ContentBlock = z.infer<typeof Block>;

const Message = z.looseObject({
  // `system` in the conversation: Claude Code's mid-conversation system messages (a beta).
  role: z.enum(["user", "assistant", "system"]),
  content: z.union([z.string(), z.array(Block).max(10_000)]),
});
export type AnthropicInputMessage = z.infer<typeof Message>;

/** A client tool (`custom`, or no type), or a server tool (`web_search_…`, `bash_…`), which is ignored. */
const Tool = z.looseObject({
  type: z.string().max(100).nullish(),
  name: z.string().min(1).max(200),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()).optional(),
});
export type AnthropicTool = z.infer<typeof Tool>;

const ToolChoice = z.union([
  z.looseObject({ type: z.enum(["auto", "any", "none"]), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({
    type: z.literal("tool"),
    name: z.string().min(1),
    disable_parallel_tool_use: z.boolean().optional(),
  }),
]);

const promptFields = {
  model: z.string().min(1).max(200),
  messages: z.array(Message).min(1).max(10_000),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).optional(),
  tools: z.array(Tool).max(512).optional(),
  tool_choice: ToolChoice.optional(),
};

/** POST /v1/messages. */
export const MessagesInput = z.looseObject({
  ...promptFields,
  max_tokens: z.number().int().min(1),
  stop_sequences: z.array(z.string()).max(64).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  metadata: z.looseObject({ user_id: z.string().max(512).nullish() }).optional(),
  stream: z.boolean().optional(),
  /** Extension (CONTRACT 5.9, as completions): profiles to compose instead of the company's default. */
  profile_ids: z.array(z.uuid()).max(20).optional(),
});
export type MessagesInput = z.infer<typeof MessagesInput>;

/** POST /v1/messages/count_tokens. */
export const CountTokensInput = z.looseObject(promptFields);
export type CountTokensInput = z.infer<typeof CountTokensInput>;
