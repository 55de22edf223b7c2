import { z } from "zod";
import { PageQuery } from "@/lib/pagination";
import { storableText } from "@/lib/persistence/pg-text";

const Name = storableText(z.string().trim().min(1).max(200));
const SystemPrompt = storableText(z.string().max(100_000));
const ModelSlug = storableText(z.string().min(1).max(200));
/** Collection ids and tool names must name the company's active ones, as the verbs check. */
const KnowledgeBaseIds = z
  .array(storableText(z.string().min(1).max(200)))
  .max(100)
  .transform((a) => [...new Set(a)]);
const AllowedToolNames = z
  .array(storableText(z.string().min(1).max(64)))
  .max(128)
  .transform((a) => [...new Set(a)]);

/** Body of POST /v1/profiles: SPEC's profile fields; only `name` is required. */
export const CreateProfileInput = z.strictObject({
  name: Name,
  system_prompt: SystemPrompt.default(""),
  model_slug: ModelSlug.nullish(),
  knowledge_base_ids: KnowledgeBaseIds.default([]),
  allowed_tool_names: AllowedToolNames.default([]),
  use_kb: z.boolean().default(true),
  use_tools: z.boolean().default(true),
  is_default: z.boolean().default(false),
});
export type CreateProfileInput = z.infer<typeof CreateProfileInput>;

/** Body of PATCH /v1/profiles/{id}: only the fields to change; `model_slug: null` clears it. */
export const UpdateProfileInput = z.strictObject({
  name: Name.optional(),
  system_prompt: SystemPrompt.optional(),
  model_slug: ModelSlug.nullable().optional(),
  knowledge_base_ids: KnowledgeBaseIds.optional(),
  allowed_tool_names: AllowedToolNames.optional(),
  use_kb: z.boolean().optional(),
  use_tools: z.boolean().optional(),
  is_default: z.boolean().optional(),
});
export type UpdateProfileInput = z.infer<typeof UpdateProfileInput>;

const QueryBoolean = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

/** Query of GET /v1/profiles: pagination (ids are UUIDs, so is `after`) and `full`. */
export const ProfileListQuery = PageQuery.extend({
  after: z.uuid().optional(),
  full: QueryBoolean.default(false),
});
export type ProfileListQuery = z.infer<typeof ProfileListQuery>;
