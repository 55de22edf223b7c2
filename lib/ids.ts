import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform base62 string; rejection sampling keeps every character equally likely. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export const ID_PREFIX = {
  company: "co",
  user: "usr",
  key: "key",
  ledger: "le",
  reservation: "rsv",
  usage: "use",
  thread: "thread",
  message: "msg",
  run: "run",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** Opaque ids with a type prefix (CONTRACT 4): `key_3xK…`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomBase62(22)}`;
}
