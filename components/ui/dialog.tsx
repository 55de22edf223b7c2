"use client";

import * as DialogPrimitive from "@radix-ui/react-dialog";
import type { ReactNode } from "react";
import { cn } from "./cn";

export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

/** Overlay + centred panel with a title, an optional description and a close button. */
export function DialogContent({
  title,
  description,
  children,
  className,
  dismissible = true,
  ...rest
}: {
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  className?: string;
  /** false: a click outside does not close it (Escape and the close button still do). */
  dismissible?: boolean;
} & Record<`data-${string}`, string>) {
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-slate-900/40 backdrop-blur-[1px]" />
      <DialogPrimitive.Content
        className={cn(
          "fixed top-1/2 left-1/2 z-50 max-h-[calc(100vh-2rem)] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2",
          "overflow-y-auto rounded-xl bg-white shadow-xl ring-1 ring-slate-900/10 focus:outline-none",
          className,
        )}
        // Radix warns when Content has no Description; opt out explicitly when there is none.
        {...(description ? {} : { "aria-describedby": undefined })}
        onInteractOutside={dismissible ? undefined : (e) => e.preventDefault()}
        {...rest}
      >
        <div className="flex items-start justify-between gap-4 px-6 pt-5">
          <div>
            <DialogPrimitive.Title className="text-base font-semibold text-slate-900">{title}</DialogPrimitive.Title>
            {description && (
              <DialogPrimitive.Description className="mt-1 text-sm text-slate-500">
                {description}
              </DialogPrimitive.Description>
            )}
          </div>
          <DialogPrimitive.Close
            className="-mr-2 rounded-md p-1.5 text-slate-400 hover:bg-slate-100 hover:text-slate-600 focus-visible:outline-2 focus-visible:outline-indigo-600"
            aria-label="Close"
          >
            <svg viewBox="0 0 20 20" fill="currentColor" className="size-4" aria-hidden="true">
              <path d="M6.28 5.22a.75.75 0 0 0-1.06 1.06L8.94 10l-3.72 3.72a.75.75 0 1 0 1.06 1.06L10 11.06l3.72 3.72a.75.75 0 1 0 1.06-1.06L11.06 10l3.72-3.72a.75.75 0 0 0-1.06-1.06L10 8.94 6.28 5.22Z" />
            </svg>
          </DialogPrimitive.Close>
        </div>
        <div className="px-6 pt-4 pb-5">{children}</div>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}

export function DialogFooter({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div
      className={cn(
        "-mx-6 mt-6 -mb-5 flex justify-end gap-2 border-t border-slate-100 bg-slate-50/60 px-6 py-3",
        className,
      )}
    >
      {children}
    </div>
  );
}
