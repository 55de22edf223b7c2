import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Random bytes from a pooled buffer: one crypto call per pool instead of one per id, as ids are
// minted often.
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;
function nextByte(): number {
  if (offset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  return pool[offset++]!;
}

/** Uniform base62 string; rejection sampling (bytes ≥ 248 are skipped) keeps every character equally likely. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = nextByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

const ID_PREFIX = {
  company: "co",
  user: "usr",
  key: "key",
  ledger: "le",
  reservation: "rsv",
  usage: "use",
  thread: "thread",
  message: "msg",
  run: "run",
  /** A run made by the Responses API (OpenAI's `resp_…`). */
  response: "resp",
  guardrail: "gr",
  tool: "tool",
  knowledgeCollection: "kc",
  document: "doc",
  deal: "deal",
  dealStageChange: "dsc",
  invoice: "inv",
  agent: "agent",
  webhook: "wh",
  webhookEvent: "evt",
  setupToken: "stp",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** Opaque ids with a type prefix (CONTRACT 4): `key_3xK…`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomBase62(22)}`;
}
