import { z } from "zod";
import { AppError } from "@/lib/errors";
import { EventTopic } from "@/lib/agents/topics";
import { isStorableJson, storableText, UNSTORABLE_MESSAGE } from "@/lib/persistence/pg-text";

/** The trigger's body cap: larger is 413 before it is read whole. */
export const TRIGGER_BODY_LIMIT_BYTES = 256 * 1024;

/** SPEC "Inbound webhook": `{event_topic, payload}`; nothing else (a misspelt field is a 400, not ignored). */
export const TriggerInput = z.strictObject({
  event_topic: EventTopic,
  payload: z.record(z.string(), z.unknown()).refine(isStorableJson, UNSTORABLE_MESSAGE),
});
export type TriggerInput = z.infer<typeof TriggerInput>;

/** `Idempotency-Key` or Standard Webhooks `webhook-id`: printable ASCII, 1–255 characters. */
const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, "must be 1-255 printable ASCII characters");

export const WebhookName = storableText(z.string().trim().min(1).max(200));

/**
 * The sender's idempotency key: `Idempotency-Key`, else Standard Webhooks' `webhook-id`; none: null.
 * @throws a ZodError (400, param naming the header) for a malformed key.
 */
export function idempotencyKeyOf(req: Request): string | null {
  for (const header of ["idempotency-key", "webhook-id"]) {
    const value = req.headers.get(header);
    if (value === null) continue;
    const parsed = IdempotencyKey.safeParse(value);
    if (!parsed.success)
      throw new AppError("invalid_request", `${header}: ${parsed.error.issues[0]?.message ?? "invalid"}`, {
        param: header,
      });
    return parsed.data;
  }
  return null;
}

/** Body of PATCH /api/panel/webhooks/{id}: pause/resume and/or rebind (`agent_id: null`: the company bus); at least one. */
export const UpdateWebhookInput = z
  .strictObject({ is_active: z.boolean(), agent_id: z.string().min(1).max(100).nullable() })
  .partial()
  .refine((o) => Object.keys(o).length > 0, "give at least one of is_active, agent_id");
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookInput>;
