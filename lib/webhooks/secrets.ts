import { createHash, timingSafeEqual } from "node:crypto";
import { randomBase62 } from "@/lib/ids";

/** A trigger secret: it is the last segment of the endpoint's URL, so URL-safe (base62, ~238 bits). */
export const newWebhookSecret = (): string => `whs_${randomBase62(40)}`;

export const hashWebhookSecret = (secret: string): string => createHash("sha256").update(secret, "utf8").digest("hex");

/** Constant-time equality of two hex SHA-256 digests (equal lengths by construction; a wrong length is unequal). */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

export const triggerPath = (companyId: string, secret: string): string => `/v1/public/triggers/${companyId}/${secret}`;
