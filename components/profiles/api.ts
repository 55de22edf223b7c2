import type { toPublicProfile } from "@/lib/profiles/to-public-profile";
import { fetchJson, type ListPage } from "@/components/panel/fetch-json";

export type PublicProfile = ReturnType<typeof toPublicProfile>;
export type ProfilePage = ListPage<PublicProfile>;

/** One page holds every profile a company realistically keeps; the API's maximum. */
export const PROFILES_PAGE_SIZE = 100;

export interface ProfileBody {
  name?: string;
  system_prompt?: string;
  model_slug?: string | null;
  is_default?: boolean;
  allowed_tool_names?: string[];
  use_tools?: boolean;
  knowledge_base_ids?: string[];
  use_kb?: boolean;
}

export function fetchProfiles(): Promise<ProfilePage> {
  return fetchJson<ProfilePage>(`/api/panel/profiles?limit=${PROFILES_PAGE_SIZE}&order=asc`);
}

export function createProfileRequest(body: ProfileBody): Promise<PublicProfile> {
  return fetchJson<PublicProfile>("/api/panel/profiles", { method: "POST", body: JSON.stringify(body) });
}

export function updateProfileRequest(id: string, body: ProfileBody): Promise<PublicProfile> {
  return fetchJson<PublicProfile>(`/api/panel/profiles/${encodeURIComponent(id)}`, {
    method: "PATCH",
    body: JSON.stringify(body),
  });
}

export function deleteProfileRequest(id: string): Promise<{ id: string; deleted: true }> {
  return fetchJson(`/api/panel/profiles/${encodeURIComponent(id)}`, { method: "DELETE" });
}
