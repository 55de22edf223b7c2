"use client";

import type { FormEvent, KeyboardEvent, ReactNode } from "react";
import { Button } from "@/components/ui/button";

export function Composer({
  draft,
  onDraftChange,
  onSend,
  onStop,
  streaming,
  canSend,
  hint,
  toolbar,
}: {
  draft: string;
  onDraftChange: (text: string) => void;
  onSend: () => void;
  onStop: () => void;
  streaming: boolean;
  canSend: boolean;
  hint: string;
  /** Shown above the input: what the next message runs with. */
  toolbar?: ReactNode;
}) {
  const ready = canSend && !streaming && draft.trim() !== "";

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (ready) onSend();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    // Enter sends, Shift+Enter breaks the line; never while an IME composes a character.
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      if (ready) onSend();
    }
  }

  return (
    <form onSubmit={submit} className="border-t border-slate-200 bg-slate-50/70 px-3 pt-3 pb-2 sm:px-4">
      {toolbar}
      <div className="flex items-end gap-2 rounded-lg bg-white p-1.5 shadow-xs ring-1 ring-slate-300 ring-inset focus-within:ring-2 focus-within:ring-indigo-600">
        <textarea
          aria-label="Message"
          data-testid="message-input"
          value={draft}
          onChange={(e) => onDraftChange(e.target.value)}
          onKeyDown={onKeyDown}
          rows={1}
          placeholder="Send a message…"
          className="field-sizing-content max-h-48 min-h-9 flex-1 resize-none border-0 bg-transparent px-2 py-1.5 text-sm text-slate-900 placeholder:text-slate-400 focus:outline-none"
        />
        {streaming ? (
          <Button variant="secondary" onClick={onStop} data-testid="stop">
            <span className="size-2.5 rounded-xs bg-current" aria-hidden="true" />
            Stop
          </Button>
        ) : (
          <Button type="submit" disabled={!ready} data-testid="send">
            Send
            <svg viewBox="0 0 20 20" fill="currentColor" className="-mr-0.5 size-4" aria-hidden="true">
              <path d="M3.105 2.288a.75.75 0 0 0-.826.95l1.414 4.926A1.5 1.5 0 0 0 5.135 9.25h6.115a.75.75 0 0 1 0 1.5H5.135a1.5 1.5 0 0 0-1.442 1.086l-1.414 4.926a.75.75 0 0 0 .826.95 28.897 28.897 0 0 0 15.293-7.155.75.75 0 0 0 0-1.114A28.897 28.897 0 0 0 3.105 2.288Z" />
            </svg>
          </Button>
        )}
      </div>
      <p className="mt-1.5 flex justify-between gap-4 px-1 text-xs text-slate-400">
        <span>{hint}</span>
        <span className="hidden sm:inline">Enter to send · Shift+Enter for a new line</span>
      </p>
    </form>
  );
}
