import { z } from "zod";
import { USAGE_DIRECTION, USAGE_DIRECTIONS, USAGE_SOURCES } from "@/db/enums";
import { PageQuery } from "@/lib/pagination";
import { isStorableJson, storableText, UNSTORABLE_MESSAGE } from "@/lib/persistence/pg-text";

/** Longest single usage event we bill: a day. Anything longer is a client bug, not a call. */
const MAX_USAGE_DURATION_S = 86_400;

/** Body of POST /v1/usage (SPEC §2, CONTRACT 5.8). */
export const UsageEventInput = z.strictObject({
  source: z.enum(USAGE_SOURCES),
  duration_s: z.number().finite().min(0).max(MAX_USAGE_DURATION_S),
  direction: z.enum(USAGE_DIRECTIONS).default(USAGE_DIRECTION.inbound),
  metadata: z
    .record(z.string(), z.unknown())
    .default({})
    .refine((m) => JSON.stringify(m).length <= 16_384, "must serialise to at most 16 KiB")
    .refine(isStorableJson, UNSTORABLE_MESSAGE),
});
export type UsageEventInput = z.infer<typeof UsageEventInput>;

export const IdempotencyKey = storableText(z.string().trim().min(1).max(255));

export const LedgerQuery = PageQuery.extend({ source: storableText(z.string().min(1).max(64)).optional() });
export type LedgerQuery = z.infer<typeof LedgerQuery>;
