import type { ComponentProps, ReactNode } from "react";
import { cn } from "./cn";

/**
 * `stackOnPhone`: below the sm breakpoint each row becomes a block of its cells, one under another
 * (for rows of controls that no column choice fits in 390 px); see globals.css.
 */
export function Table({ className, stackOnPhone, ...props }: ComponentProps<"table"> & { stackOnPhone?: boolean }) {
  return (
    // `relative`: an absolutely placed cell child (a switch's sr-only input) is clipped with the
    // table instead of widening the page.
    <div className="relative overflow-x-auto">
      <table
        className={cn("min-w-full divide-y divide-slate-200 text-sm", className)}
        data-stack={stackOnPhone ? "phone" : undefined}
        {...props}
      />
    </div>
  );
}

export function THead({ className, ...props }: ComponentProps<"thead">) {
  return <thead className={cn("bg-slate-50/80", className)} {...props} />;
}

export function TBody({ className, ...props }: ComponentProps<"tbody">) {
  return <tbody className={cn("divide-y divide-slate-100 bg-white", className)} {...props} />;
}

export function TR({ className, ...props }: ComponentProps<"tr">) {
  return <tr className={cn("transition-colors hover:bg-slate-50/70", className)} {...props} />;
}

export function TH({ className, align = "left", ...props }: ComponentProps<"th"> & { align?: "left" | "right" }) {
  return (
    <th
      scope="col"
      className={cn(
        "px-3 py-2.5 text-xs font-medium tracking-wide whitespace-nowrap text-slate-500 uppercase first:pl-4 last:pr-4 sm:px-4 sm:first:pl-5 sm:last:pr-5",
        align === "right" ? "text-right" : "text-left",
        className,
      )}
      {...props}
    />
  );
}

export function TD({ className, align = "left", ...props }: ComponentProps<"td"> & { align?: "left" | "right" }) {
  return (
    <td
      className={cn(
        "px-3 py-3 whitespace-nowrap text-slate-700 first:pl-4 last:pr-4 sm:px-4 sm:first:pl-5 sm:last:pr-5",
        align === "right" && "text-right tabular-nums",
        className,
      )}
      {...props}
    />
  );
}

/** A full-width row for loading, empty and error states. */
export function TableMessage({ colSpan, children }: { colSpan: number; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={colSpan} className="px-5 py-12 text-center text-sm text-slate-500">
        {children}
      </td>
    </tr>
  );
}
