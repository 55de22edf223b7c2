"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";

/** A code block with a Copy button (the clipboard may be refused: the text stays selectable). */
export function CopyBlock({ label, code, testId }: { label: string; code: string; testId: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  async function copy() {
    try {
      await navigator.clipboard.writeText(code);
      setState("copied");
    } catch {
      setState("failed");
    }
  }
  return (
    <div className="mt-3">
      <div className="flex items-center justify-between gap-2">
        <span className="text-xs font-medium text-slate-600">{label}</span>
        <Button size="sm" variant="secondary" onClick={copy} aria-label={`Copy: ${label}`}>
          {state === "copied" ? "Copied" : "Copy"}
        </Button>
      </div>
      <pre
        data-testid={testId}
        className="mt-1.5 overflow-x-auto rounded-md bg-slate-900 px-3 py-2.5 font-mono text-xs leading-relaxed text-slate-100"
      >
        {code}
      </pre>
      {state === "failed" && (
        <p className="mt-1 text-xs text-slate-500">
          Copy was blocked by the browser: select the code and copy it by hand.
        </p>
      )}
    </div>
  );
}
