import { z } from "zod";
import { storableText } from "@/lib/persistence/pg-text";
import { SCOPES } from "@/db/enums";

export const ScopeList = z
  .array(z.enum(SCOPES))
  .min(1, "at least one scope is required")
  .transform((s) => [...new Set(s)]);

/** A new key's rate limit when none is asked for (a key creating a key: at most its own). */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;

export const RateLimitPerMinute = z.number().int().min(1).max(100_000);

/** Body of POST /v1/sdk/keys (CONTRACT 5.5) and of the panel's create dialog. */
export const CreateKeyInput = z.strictObject({
  name: storableText(z.string().trim().min(1).max(100)),
  scopes: ScopeList,
  rate_limit_per_minute: RateLimitPerMinute.optional(),
  expires_at: z.iso
    .datetime({ offset: true })
    .nullish()
    .refine((v) => v == null || Date.parse(v) > Date.now(), "must be in the future"),
});
export type CreateKeyInput = z.infer<typeof CreateKeyInput>;

/** Body of POST /v1/sdk/token (CONTRACT 5.2): optional narrowing. */
export const TokenInput = z.strictObject({ scopes: ScopeList.optional() });
export type TokenInput = z.infer<typeof TokenInput>;
