import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import { LoginForm } from "@/components/panel/login-form";
import { Logo } from "@/components/panel/logo";
import { getPanelSession } from "@/lib/panel/get-panel-session";
import { safeRedirectPath } from "@/lib/panel/safe-redirect";
import { isSetupPending } from "@/lib/setup";

export const metadata: Metadata = { title: "Sign in · Cockpit Gateway" };

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const redirectTo = safeRedirectPath((await searchParams).callbackUrl);
  if (await getPanelSession()) redirect(redirectTo);
  const setupPending = await isSetupPending(db);
  return (
    <main className="flex min-h-screen flex-col items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-8 flex flex-col items-center text-center">
          <Logo className="size-10" />
          <h1 className="mt-4 text-xl font-semibold tracking-tight text-slate-900">Sign in to Cockpit Gateway</h1>
          <p className="mt-1 text-sm text-slate-500">Manage your company&apos;s API keys and usage.</p>
        </div>
        {setupPending && (
          <div
            role="status"
            data-testid="setup-pending"
            className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800 ring-1 ring-inset ring-amber-600/20"
          >
            No admin yet: open the setup link <code>npm start</code> printed as its last line to choose the admin&apos;s
            email and password. The link works once, on this machine; restarting <code>npm start</code> prints a new
            one.
          </div>
        )}
        <div className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
          <LoginForm redirectTo={redirectTo} />
        </div>
        <p className="mt-6 text-center text-xs text-slate-400">Accounts are created by your operator.</p>
      </div>
    </main>
  );
}
