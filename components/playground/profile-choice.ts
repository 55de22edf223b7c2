import type { ProfileChoice } from "./types";

/** A profile as the playground page hands it over. */
export interface PlaygroundProfile {
  id: string;
  name: string;
  is_default: boolean;
}

/** The picker's value: no profile, the company's default, or one profile's id. */
export type ProfilePick = "none" | "default" | `profile:${string}`;

export interface ProfileOption {
  value: ProfilePick;
  label: string;
}

/** "None", "Company default (<name>)" when the company has one, then every profile by name. */
export function profileOptions(profiles: PlaygroundProfile[]): ProfileOption[] {
  const fallback = profiles.find((p) => p.is_default);
  return [
    { value: "none", label: "None" },
    ...(fallback ? [{ value: "default" as const, label: `Company default (${fallback.name})` }] : []),
    ...[...profiles]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((p) => ({ value: `profile:${p.id}` as const, label: p.name })),
  ];
}

/**
 * What a pick sends: the default leaves `profile_ids` out (the API applies the company's
 * default), "none" sends `[]` (no profile, not even the default), a profile sends its id. A pick
 * whose profile is gone falls back to none.
 */
export function profileChoice(pick: ProfilePick, profiles: PlaygroundProfile[]): ProfileChoice {
  if (pick === "default") {
    const fallback = profiles.find((p) => p.is_default);
    if (fallback) return { label: `Company default (${fallback.name})` };
  }
  if (pick.startsWith("profile:")) {
    const id = pick.slice("profile:".length);
    const picked = profiles.find((p) => p.id === id);
    if (picked) return { profileIds: [picked.id], label: picked.name };
  }
  return { profileIds: [], label: "None" };
}
