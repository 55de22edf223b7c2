import type { ReactNode } from "react";

/** What a list shows when it has nothing yet: what belongs here and the next step to take. */
export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="px-4 py-10 text-center text-sm text-slate-500" data-testid="empty-state">
      <p className="font-medium text-slate-700">{title}</p>
      {children && <div className="mx-auto mt-1 max-w-md">{children}</div>}
      {action && <div className="mt-4 flex justify-center">{action}</div>}
    </div>
  );
}
