import { z } from "zod";
import { isStorableJson, storableText, UNSTORABLE_MESSAGE } from "@/lib/persistence/pg-text";

/**
 * One line of an Assistants export: a thread and its messages exactly as OpenAI's Assistants API
 * returned them (`GET /v1/threads/{id}` and the `data` of `GET /v1/threads/{id}/messages`, field
 * reference: node_modules/openai/resources/beta/threads/*.d.ts). Fields we do not import
 * (`tool_resources`, `assistant_id`, `run_id`, `status`, annotations' file references …) are
 * accepted and dropped.
 */

const OpenAiId = storableText(z.string().min(1).max(256));
const UnixSeconds = z.number().int().nonnegative();
const Detail = z.enum(["auto", "low", "high"]).nullish();

/** Same rule as the threads API (content-part-input.ts) except that http:// is kept too: OpenAI accepted it. */
const DATA_URI = /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+$/i;
const ImageUrl = z
  .string()
  .max(20 * 1024 * 1024)
  .refine((u) => /^https?:\/\/\S+$/i.test(u) || DATA_URI.test(u), {
    message: "must be an http(s) URL or a data:image/…;base64 URI",
  });

const TextBlock = z.object({
  type: z.literal("text"),
  text: z.object({ value: z.string(), annotations: z.array(z.unknown()).nullish() }),
});
const ImageUrlBlock = z.object({
  type: z.literal("image_url"),
  image_url: z.object({ url: ImageUrl, detail: Detail }),
});
const ImageFileBlock = z.object({
  type: z.literal("image_file"),
  image_file: z.object({ file_id: OpenAiId, detail: Detail }),
});
const RefusalBlock = z.object({ type: z.literal("refusal"), refusal: z.string() });

const OpenAiMessageContent = z.discriminatedUnion("type", [TextBlock, ImageUrlBlock, ImageFileBlock, RefusalBlock]);

export const OpenAiMessage = z.object({
  id: OpenAiId,
  object: z.literal("thread.message"),
  created_at: UnixSeconds,
  thread_id: OpenAiId,
  role: z.enum(["user", "assistant"]),
  content: z.array(OpenAiMessageContent),
  attachments: z.array(z.object({ file_id: OpenAiId })).nullish(),
});
export type OpenAiMessage = z.infer<typeof OpenAiMessage>;

const OpenAiThread = z.object({
  id: OpenAiId,
  object: z.literal("thread"),
  created_at: UnixSeconds,
  metadata: z.record(z.string(), z.unknown()).nullish().refine(isStorableJson, UNSTORABLE_MESSAGE),
});

/** One line of the file given to `import openai-threads`; every message must belong to the line's thread. */
export const OpenAiThreadExport = z
  .object({ thread: OpenAiThread, messages: z.array(OpenAiMessage) })
  .superRefine((line, ctx) => {
    line.messages.forEach((m, i) => {
      if (m.thread_id !== line.thread.id)
        ctx.addIssue({
          code: "custom",
          path: ["messages", i, "thread_id"],
          message: `is '${m.thread_id}', not the line's thread '${line.thread.id}'`,
        });
    });
  });
export type OpenAiThreadExport = z.infer<typeof OpenAiThreadExport>;
