import { z } from "zod";
import { THREAD_SOURCES } from "@/db/enums";
import { PageQuery } from "@/lib/pagination";
import { isStorableJson, isStorableText, storableText, UNSTORABLE_MESSAGE } from "@/lib/persistence/pg-text";
import { ContentPartInput } from "./content-part-input";

/** Image parts arrive inline as data: URIs, so message bodies may be as large as a completion's. */
export const MESSAGES_BODY_LIMIT = 32 * 1024 * 1024;
const MAX_MESSAGES_PER_BULK = 100;

/**
 * Neither SPEC nor CONTRACT bounds thread metadata, so OpenAI's limits apply: 16 keys of 64
 * characters, values of 512 characters (a non-string must serialise within 512).
 */
const METADATA_LIMITS = { keys: 16, keyChars: 64, valueChars: 512 } as const;

const ThreadMetadata = z
  .record(z.string(), z.unknown())
  .superRefine((m, ctx) => {
    const keys = Object.keys(m);
    if (keys.length > METADATA_LIMITS.keys)
      ctx.addIssue({ code: "custom", message: `must have at most ${METADATA_LIMITS.keys} keys` });
    for (const k of keys) {
      if (k.length < 1 || k.length > METADATA_LIMITS.keyChars) {
        ctx.addIssue({
          code: "custom",
          path: [k],
          message: `keys must be 1 to ${METADATA_LIMITS.keyChars} characters`,
        });
      }
      const v = m[k];
      const size = typeof v === "string" ? v.length : (JSON.stringify(v)?.length ?? 0);
      if (size > METADATA_LIMITS.valueChars) {
        ctx.addIssue({
          code: "custom",
          path: [k],
          message: `values must be at most ${METADATA_LIMITS.valueChars} characters (as JSON, when not a string)`,
        });
      }
    }
  })
  .refine(isStorableJson, UNSTORABLE_MESSAGE);

const ContentParts = z.array(ContentPartInput).min(1).max(100);
type ContentParts = z.infer<typeof ContentParts>;

/**
 * One message as the threads API takes it (roles as given). Parts are checked in a second pass so a
 * bad part is named (`content.1.image_url.url`) rather than a union's bare "Invalid input".
 */
export const MessageInput = z
  .strictObject({
    role: storableText(z.string().min(1).max(64)),
    content: z.union([z.string(), z.array(z.unknown())], { message: "must be a string or an array of content parts" }),
  })
  .transform((m, ctx) => {
    if (typeof m.content === "string") return { role: m.role, content: m.content as string | ContentParts };
    const parts = ContentParts.safeParse(m.content);
    if (!parts.success) {
      for (const issue of parts.error.issues)
        ctx.addIssue({ code: "custom", message: issue.message, path: ["content", ...issue.path] });
      return z.NEVER;
    }
    return { role: m.role, content: parts.data as string | ContentParts };
  });
export type MessageInput = z.infer<typeof MessageInput>;

const Messages = z.array(MessageInput).min(1).max(MAX_MESSAGES_PER_BULK);

/** Body of POST /v1/threads; `messages` (as OpenAI's create thread takes them) is optional. */
export const CreateThreadInput = z.strictObject({
  metadata: ThreadMetadata.nullish().transform((m) => m ?? {}),
  messages: Messages.optional(),
});
export type CreateThreadInput = z.infer<typeof CreateThreadInput>;

/** Body of POST /v1/threads/{id}/messages/bulk (CONTRACT 5.1). */
export const BulkMessagesInput = z.strictObject({ messages: Messages });
export type BulkMessagesInput = z.infer<typeof BulkMessagesInput>;

export const ThreadListQuery = PageQuery.extend({ source: z.enum(THREAD_SOURCES).optional() });
export type ThreadListQuery = z.infer<typeof ThreadListQuery>;

/** Longest text the panel searches messages for: enough for a phrase, short enough for a scan. */
const THREAD_SEARCH_MAX_CHARS = 200;

/** The panel's thread list: the API's filters plus `q`, text one of the thread's messages contains (any case). */
export const PanelThreadListQuery = ThreadListQuery.extend({
  q: z
    .string()
    .trim()
    .max(THREAD_SEARCH_MAX_CHARS)
    .refine(isStorableText, UNSTORABLE_MESSAGE)
    .optional()
    .transform((q) => q || undefined),
});
export type PanelThreadListQuery = z.infer<typeof PanelThreadListQuery>;

/** Messages are paged by their order in the thread; `after` is a message id. */
export const MessageListQuery = PageQuery;
export type MessageListQuery = z.infer<typeof MessageListQuery>;
