import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { AppError } from "@/lib/errors";

/**
 * Standard Webhooks (https://www.standardwebhooks.com/): HMAC-SHA256 of
 * `${webhook-id}.${webhook-timestamp}.${body}` keyed by the `whsec_…` secret's base64, sent as
 * `webhook-signature: v1,<base64>` (several during rotation). Timestamps beyond this tolerance are
 * refused, so a captured delivery cannot be replayed.
 */
const SIGNATURE_TOLERANCE_S = 300;

export const newSigningSecret = (): string => `whsec_${randomBytes(24).toString("base64")}`;

/** @internal */
export function signPayload(secret: string, id: string, timestamp: number | string, body: string): string {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

const invalid = (why: string) =>
  new AppError("unauthenticated", `Invalid webhook signature: ${why}`, { wireCode: "invalid_signature" });

/**
 * Checks a delivery's Standard Webhooks headers against the endpoint's secret.
 * @throws unauthenticated (401, code invalid_signature) naming what is wrong.
 */
export function verifySignature(args: { secret: string; headers: Headers; body: string; nowS?: number }): void {
  const id = args.headers.get("webhook-id");
  const timestamp = args.headers.get("webhook-timestamp");
  const signatures = args.headers.get("webhook-signature");
  if (!id || !timestamp || !signatures)
    throw invalid("webhook-id, webhook-timestamp and webhook-signature are required");
  if (!/^\d{1,12}$/.test(timestamp)) throw invalid("webhook-timestamp must be Unix seconds");
  const now = args.nowS ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > SIGNATURE_TOLERANCE_S)
    throw invalid("webhook-timestamp is more than 5 minutes away from now");
  const expected = Buffer.from(signPayload(args.secret, id, timestamp, args.body).slice(3), "base64");
  for (const candidate of signatures.split(" ")) {
    const [version, value] = candidate.split(",", 2);
    if (version !== "v1" || !value) continue;
    const given = Buffer.from(value, "base64");
    if (given.length === expected.length && timingSafeEqual(given, expected)) return;
  }
  throw invalid("no signature matches");
}
