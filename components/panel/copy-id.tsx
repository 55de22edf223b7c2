"use client";

import { useState } from "react";
import { cn } from "@/components/ui/cn";

/**
 * An id a user copies into API calls: shown in monospace with a copy button. The clipboard may be
 * refused (no secure context): the id stays selectable and the button says so.
 */
export function CopyId({ id, label = "id", className }: { id: string; label?: string; className?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  async function copy() {
    try {
      await navigator.clipboard.writeText(id);
      setState("copied");
    } catch {
      setState("failed");
    }
    setTimeout(() => setState("idle"), 1500);
  }
  return (
    <span className={cn("inline-flex max-w-full items-center gap-1 align-middle", className)} data-testid="copy-id">
      <code
        className="min-w-0 rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs break-all whitespace-normal text-slate-600 select-all"
        title={id}
      >
        {id}
      </code>
      <button
        type="button"
        onClick={copy}
        aria-label={`Copy ${label} ${id}`}
        className="shrink-0 rounded px-1 py-0.5 text-xs font-medium text-indigo-600 hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        {state === "copied" ? "Copied" : state === "failed" ? "Select to copy" : "Copy"}
      </button>
    </span>
  );
}
