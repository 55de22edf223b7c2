import { KEY_STATUS, type Scope } from "@/db/enums";
import type { ApiKey } from "@/db/schema";
import { toUnix } from "@/lib/time";

export const KEY_DISPLAY_STATUS = { ...KEY_STATUS, expired: "expired" } as const;
export type KeyDisplayStatus = (typeof KEY_DISPLAY_STATUS)[keyof typeof KEY_DISPLAY_STATUS];

function keyDisplayStatus(key: Pick<ApiKey, "status" | "expiresAt">, now = Date.now()): KeyDisplayStatus {
  if (key.status === KEY_STATUS.revoked) return KEY_DISPLAY_STATUS.revoked;
  if (key.expiresAt && key.expiresAt.getTime() <= now) return KEY_DISPLAY_STATUS.expired;
  return KEY_DISPLAY_STATUS.active;
}

export interface PublicKey {
  id: string;
  object: "sdk.key";
  name: string;
  prefix: string;
  scopes: Scope[];
  rate_limit_per_minute: number;
  status: KeyDisplayStatus;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** The key as the API shows it: never the secret, never the hash. */
export function toPublicKey(key: ApiKey): PublicKey {
  return {
    id: key.id,
    object: "sdk.key",
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    rate_limit_per_minute: key.rateLimitPerMinute,
    status: keyDisplayStatus(key),
    created_at: toUnix(key.createdAt),
    expires_at: key.expiresAt ? toUnix(key.expiresAt) : null,
    last_used_at: key.lastUsedAt ? toUnix(key.lastUsedAt) : null,
    revoked_at: key.revokedAt ? toUnix(key.revokedAt) : null,
  };
}
