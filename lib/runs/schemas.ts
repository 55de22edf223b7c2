import { z } from "zod";
import { PageQuery } from "@/lib/pagination";
import { storableText } from "@/lib/persistence/pg-text";

/** A run's steps read as a timeline: oldest first unless `order=desc`. */
export const StepListQuery = PageQuery.extend({ order: z.enum(["asc", "desc"]).default("asc") });
export type StepListQuery = z.infer<typeof StepListQuery>;

export const RUN_BODY_LIMIT_BYTES = 1024 * 1024;

const ToolChoice = z.union([
  z.enum(["auto", "none", "required"]),
  z.strictObject({ type: z.literal("function"), function: z.strictObject({ name: z.string().min(1).max(64) }) }),
]);

/**
 * SPEC's run request plus OpenAI's sampling knobs. Unknown fields are refused (400 naming them), so
 * a misspelt `profile_id` never silently runs without its profile.
 */
export const RunInput = z.strictObject({
  model: storableText(z.string().min(1).max(200)),
  instructions: storableText(z.string().max(256 * 1024)).nullish(),
  stream: z.boolean().nullish(),
  enable_multimodal: z.boolean().nullish(),
  profile_ids: z.array(z.string().min(1).max(100)).max(20).nullish(),
  mentioned_file_ids: z
    .array(storableText(z.string().min(1).max(200)))
    .max(100)
    .nullish(),
  use_kb: z.boolean().nullish(),
  use_tools: z.boolean().nullish(),
  tool_choice: ToolChoice.nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_completion_tokens: z.number().int().min(1).max(1_000_000).nullish(),
});
export type RunInput = z.infer<typeof RunInput>;
