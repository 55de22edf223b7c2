import type { Scope } from "@/db/enums";
import type { PublicKey } from "@/lib/keys/to-public-key";
import { fetchJson, type ListPage } from "@/components/panel/fetch-json";

export type { PublicKey };
export type KeyPage = ListPage<PublicKey>;
export type CreatedKey = PublicKey & { key: string };

export const KEYS_PAGE_SIZE = 20;

export interface CreateKeyBody {
  name: string;
  scopes: Scope[];
  rate_limit_per_minute?: number;
  expires_at?: string;
}

export function fetchKeyPage(after: string | null): Promise<KeyPage> {
  const params = new URLSearchParams({ limit: String(KEYS_PAGE_SIZE) });
  if (after) params.set("after", after);
  return fetchJson<KeyPage>(`/api/panel/keys?${params}`);
}

export function createKeyRequest(body: CreateKeyBody): Promise<CreatedKey> {
  return fetchJson<CreatedKey>("/api/panel/keys", { method: "POST", body: JSON.stringify(body) });
}

export function revokeKeyRequest(keyId: string): Promise<PublicKey> {
  return fetchJson<PublicKey>(`/api/panel/keys/${encodeURIComponent(keyId)}`, { method: "DELETE" });
}
