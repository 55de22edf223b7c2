"use client";

import Link from "next/link";
import { Select } from "@/components/ui/input";
import { profileOptions, type PlaygroundProfile, type ProfilePick } from "./profile-choice";

/** The profile the next message runs with, shown by the composer so it is always in view. */
export function ProfilePicker({
  profiles,
  value,
  onChange,
}: {
  profiles: PlaygroundProfile[];
  value: ProfilePick;
  onChange: (pick: ProfilePick) => void;
}) {
  return (
    <div className="flex flex-wrap items-center gap-2 px-1 pb-2 text-xs text-slate-500">
      <label htmlFor="pg-profile" className="font-medium text-slate-700">
        Profile
      </label>
      <Select
        id="pg-profile"
        data-testid="profile-picker"
        value={value}
        onChange={(e) => onChange(e.target.value as ProfilePick)}
        className="h-7 w-auto max-w-[16rem] py-0 text-xs"
      >
        {profileOptions(profiles).map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </Select>
      <span className="hidden sm:inline">
        Its system prompt, knowledge and tools apply to the next message.{" "}
        <Link href="/profiles" className="font-medium text-indigo-600 hover:text-indigo-500">
          Profiles
        </Link>
      </span>
    </div>
  );
}
