import type { Metadata } from "next";
import Link from "next/link";
import { Logo } from "@/components/panel/logo";

export const metadata: Metadata = { title: "Page not found · Cockpit Gateway" };

/** Any path nothing serves (the /v1 API answers its own JSON 404 through its catch-all route). */
export default function NotFound() {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center px-6 py-16 text-center">
      <Logo className="size-12" />
      <p className="mt-6 text-sm font-semibold text-indigo-600">404</p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-slate-900">Page not found</h1>
      <p className="mt-2 max-w-sm text-sm text-slate-500">
        Cockpit Gateway has no page at this address. It may have moved, or the link may be mistyped.
      </p>
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        <Link
          href="/"
          className="rounded-md bg-indigo-600 px-3.5 py-2 text-sm font-medium text-white shadow-xs hover:bg-indigo-500"
          data-testid="not-found-panel"
        >
          Back to the panel
        </Link>
        <Link
          href="/login"
          className="rounded-md bg-white px-3.5 py-2 text-sm font-medium text-slate-700 shadow-xs ring-1 ring-slate-300 ring-inset hover:bg-slate-50"
          data-testid="not-found-login"
        >
          Sign in
        </Link>
      </div>
    </main>
  );
}
