"use client";

import { useMemo, useRef, type KeyboardEvent } from "react";
import { cn } from "@/components/ui/cn";
import { tokenizePython, type PyTokenKind } from "./python-highlight";

const COLOURS: Record<PyTokenKind, string> = {
  keyword: "text-violet-700",
  builtin: "text-sky-700",
  string: "text-emerald-700",
  comment: "text-slate-400 italic",
  number: "text-amber-700",
  decorator: "text-pink-700",
  defname: "text-indigo-700 font-semibold",
  plain: "",
};

/** Both layers share these so the text lines up under the caret. */
const LAYER = "m-0 block w-full px-3 py-2.5 font-mono text-xs leading-5 whitespace-pre [tab-size:4]";

/**
 * A transparent textarea over a highlighted <pre> (no editor dependency), so caret and selection
 * stay native. Tab indents four spaces; Escape then Tab leaves, so keyboard users are not trapped.
 */
export function PythonEditor({
  id,
  value,
  onChange,
  rows = 14,
}: {
  id: string;
  value: string;
  onChange: (next: string) => void;
  rows?: number;
}) {
  const pre = useRef<HTMLPreElement>(null);
  const escaped = useRef(false);
  const tokens = useMemo(() => tokenizePython(value), [value]);

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Escape") {
      escaped.current = true;
      return;
    }
    if (event.key !== "Tab" || event.shiftKey || escaped.current) {
      escaped.current = false;
      return;
    }
    event.preventDefault();
    const el = event.currentTarget;
    const { selectionStart: start, selectionEnd: end } = el;
    const next = `${value.slice(0, start)}    ${value.slice(end)}`;
    onChange(next);
    requestAnimationFrame(() => el.setSelectionRange(start + 4, start + 4));
  }

  return (
    <div
      className="relative mt-1.5 overflow-hidden rounded-md bg-white shadow-xs ring-1 ring-slate-300 ring-inset focus-within:ring-2 focus-within:ring-indigo-600"
      data-testid="python-editor"
    >
      <pre
        ref={pre}
        aria-hidden="true"
        className={cn(LAYER, "pointer-events-none absolute inset-0 overflow-hidden text-slate-800")}
      >
        {tokens.map((t, i) =>
          t.kind === "plain" ? (
            t.text
          ) : (
            <span key={i} className={COLOURS[t.kind]}>
              {t.text}
            </span>
          ),
        )}
        {/* A trailing newline needs a character after it to take up its line. */}{" "}
      </pre>
      <textarea
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={onKeyDown}
        onScroll={(e) => {
          if (pre.current) {
            pre.current.scrollTop = e.currentTarget.scrollTop;
            pre.current.scrollLeft = e.currentTarget.scrollLeft;
          }
        }}
        rows={rows}
        wrap="off"
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        autoCorrect="off"
        className={cn(
          LAYER,
          "relative resize-y overflow-auto bg-transparent text-transparent caret-slate-900 outline-none selection:bg-indigo-200/60",
        )}
      />
    </div>
  );
}
