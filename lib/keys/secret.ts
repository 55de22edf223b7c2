import { createHash } from "node:crypto";
import { randomBase62 } from "@/lib/ids";

/** `sk-cp-` + 40 base62 chars ≈ 238 random bits. Looks like an OpenAI key so clients accept it. */
const KEY_SECRET_PREFIX = "sk-cp-";
const PREFIX_SHOWN = 12;

export function generateKeySecret(): string {
  return KEY_SECRET_PREFIX + randomBase62(40);
}

export function hashKeySecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function displayPrefix(secret: string): string {
  return secret.slice(0, PREFIX_SHOWN);
}

/** Syntactic check only, so garbage never reaches the database. */
export function looksLikeKeySecret(value: string): boolean {
  return value.startsWith(KEY_SECRET_PREFIX) && /^[0-9A-Za-z]{40}$/.test(value.slice(KEY_SECRET_PREFIX.length));
}
