"use client";

import type { ComponentProps } from "react";
import { cn } from "./cn";

const SIZES = {
  sm: { track: "h-4 w-7", knob: "size-3", on: "translate-x-[14px]", off: "translate-x-0.5" },
  md: { track: "h-5 w-9", knob: "size-4", on: "translate-x-[18px]", off: "translate-x-0.5" },
} as const;

/** An on/off switch (role="switch"): a button, so it is reachable and toggled from the keyboard. */
export function Switch({
  checked,
  onCheckedChange,
  size = "md",
  className,
  ...props
}: Omit<ComponentProps<"button">, "onClick" | "role" | "type"> & {
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
  size?: keyof typeof SIZES;
}) {
  const s = SIZES[size];
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      onClick={() => onCheckedChange(!checked)}
      className={cn(
        "relative inline-flex shrink-0 cursor-pointer items-center rounded-full transition-colors",
        "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600",
        "disabled:cursor-not-allowed disabled:opacity-50",
        s.track,
        checked ? "bg-indigo-600" : "bg-slate-300",
        className,
      )}
      {...props}
    >
      <span
        aria-hidden="true"
        className={cn(
          "pointer-events-none inline-block rounded-full bg-white shadow-sm transition-transform",
          s.knob,
          checked ? s.on : s.off,
        )}
      />
    </button>
  );
}
