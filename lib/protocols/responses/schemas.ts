import { z } from "zod";
import { PageQuery } from "@/lib/pagination";
import { storableText } from "@/lib/persistence/pg-text";

export const RESPONSE_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

const Text = storableText(z.string().max(1024 * 1024));

/** Content parts of an input message (OpenAI's input_text, input_image; output_text when an assistant turn is given back). */
const InputPart = z.discriminatedUnion("type", [
  z.object({ type: z.literal("input_text"), text: Text }),
  z.object({ type: z.literal("output_text"), text: Text }),
  z.object({ type: z.literal("refusal"), refusal: Text }),
  z.object({
    type: z.literal("input_image"),
    image_url: z.string().min(1).nullish(),
    file_id: z.string().nullish(),
    detail: z.enum(["low", "high", "auto"]).nullish(),
  }),
]);
export type InputPart = z.infer<typeof InputPart>;

const MessageItem = z.object({
  type: z.literal("message").optional(),
  id: z.string().nullish(),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: z.union([Text, z.array(InputPart).max(500)]),
});

const FunctionCallItem = z.object({
  type: z.literal("function_call"),
  id: z.string().nullish(),
  call_id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  arguments: Text,
});

const FunctionCallOutputItem = z.object({
  type: z.literal("function_call_output"),
  id: z.string().nullish(),
  call_id: z.string().min(1).max(200),
  output: z.union([Text, z.array(InputPart).max(500)]),
});

/** Reasoning items a client replays: nothing of ours to give back to a model, dropped. */
const ReasoningItem = z.object({ type: z.literal("reasoning") }).loose();

export const InputItem = z.union([MessageItem, FunctionCallItem, FunctionCallOutputItem, ReasoningItem]);
export type InputItem = z.infer<typeof InputItem>;

const FunctionTool = z.object({
  type: z.literal("function"),
  name: z.string().min(1).max(64),
  description: z
    .string()
    .max(64 * 1024)
    .nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
export type FunctionTool = z.infer<typeof FunctionTool>;

/** Tools of other types (web_search, custom, local_shell, …) are not ours to run: accepted and not offered. */
const OtherTool = z.object({ type: z.string().min(1) }).loose();

const ToolChoice = z.union([
  z.enum(["auto", "none", "required"]),
  z.object({ type: z.literal("function"), name: z.string().min(1).max(64) }),
  z.object({ type: z.string() }).loose(),
]);
export type ResponseToolChoice = z.infer<typeof ToolChoice>;

const Metadata = z.record(z.string().max(64), z.string().max(512)).refine((m) => Object.keys(m).length <= 16, {
  message: "at most 16 keys",
});

/**
 * OpenAI's `POST /v1/responses` body, the fields we act on, plus our run extensions (`profile_ids`,
 * `use_kb`, `use_tools`). Other fields of OpenAI's request (`include`, `reasoning`, `text`,
 * `truncation`, `prompt_cache_key`, …) are accepted and ignored, so real clients work unmodified.
 */
export const CreateResponseInput = z.object({
  model: storableText(z.string().min(1).max(200)),
  input: z.union([Text, z.array(InputItem).max(10_000)]).nullish(),
  instructions: storableText(z.string().max(256 * 1024)).nullish(),
  previous_response_id: z.string().min(1).max(200).nullish(),
  conversation: z.union([z.string().min(1).max(200), z.object({ id: z.string().min(1).max(200) })]).nullish(),
  store: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  max_output_tokens: z.number().int().min(1).max(1_000_000).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  tools: z
    .array(z.union([FunctionTool, OtherTool]))
    .max(128)
    .nullish(),
  tool_choice: ToolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  metadata: Metadata.nullish(),
  profile_ids: z.array(z.string().min(1).max(100)).max(20).nullish(),
  use_kb: z.boolean().nullish(),
  use_tools: z.boolean().nullish(),
});
export type CreateResponseInput = z.infer<typeof CreateResponseInput>;

export const CreateConversationInput = z.object({
  items: z.array(InputItem).max(20).nullish(),
  metadata: Metadata.nullish(),
});
export type CreateConversationInput = z.infer<typeof CreateConversationInput>;

export const UpdateConversationInput = z.object({ metadata: Metadata });
export type UpdateConversationInput = z.infer<typeof UpdateConversationInput>;

export const AddItemsInput = z.object({ items: z.array(InputItem).min(1).max(20) });
export type AddItemsInput = z.infer<typeof AddItemsInput>;

/** Item lists read as OpenAI's: `order` defaults to desc for conversation items, asc for input items (set by the caller). */
export const ItemListQuery = PageQuery;
export type ItemListQuery = z.infer<typeof ItemListQuery>;
