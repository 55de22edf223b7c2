import "server-only";
import type { Webhook } from "@/db/schema";
import { parseJsonObject, readBody } from "@/lib/http/read-json";
import { TRIGGER_BODY_LIMIT_BYTES, TriggerInput } from "./schemas";
import { verifySignature } from "./signature";

/**
 * The delivery as `{event_topic, payload}`: read under the size cap (413), its Standard Webhooks
 * signature checked over the exact bytes when required (401), then parsed (400 naming the field).
 */
export async function readTrigger(req: Request, webhook: Webhook): Promise<TriggerInput> {
  const raw = await readBody(req, TRIGGER_BODY_LIMIT_BYTES);
  let text: string;
  try {
    text = Buffer.concat(raw.chunks).toString("utf8");
  } finally {
    raw.release();
  }
  if (webhook.requireSignature && webhook.signingSecret)
    verifySignature({ secret: webhook.signingSecret, headers: req.headers, body: text });
  return TriggerInput.parse(parseJsonObject(text));
}
