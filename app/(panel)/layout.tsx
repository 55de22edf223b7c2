import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { db } from "@/db/client";
import { CompanyBalance } from "@/components/panel/company-balance";
import { Logo } from "@/components/panel/logo";
import { SidebarNav } from "@/components/panel/sidebar-nav";
import { SignOutButton } from "@/components/panel/sign-out-button";
import { Providers } from "@/components/providers";
import { getCompany, toPublicCompany } from "@/lib/companies";
import { getPanelSession } from "@/lib/panel/get-panel-session";

export default async function PanelLayout({ children }: { children: ReactNode }) {
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const email = session.user?.email ?? "Signed in";
  const company = toPublicCompany(await getCompany(db, { companyId: session.companyId }));
  const loadedAt = Date.now();

  return (
    <Providers>
      <div className="min-h-screen lg:flex">
        <aside className="border-b border-slate-200 bg-white lg:fixed lg:inset-y-0 lg:flex lg:w-60 lg:flex-col lg:border-r lg:border-b-0">
          <div className="flex items-center gap-2.5 px-4 py-3 lg:px-5 lg:py-5">
            <Logo />
            <div className="leading-tight">
              <div className="text-sm font-semibold text-slate-900">Cockpit</div>
              <div className="text-xs text-slate-500">Gateway</div>
            </div>
            <div className="ml-auto min-w-0 lg:hidden">
              <CompanyBalance initial={company} loadedAt={loadedAt} compact />
            </div>
          </div>
          <div className="hidden px-3 pb-3 lg:block">
            <CompanyBalance initial={company} loadedAt={loadedAt} />
          </div>
          <div className="px-3 pb-3 lg:flex-1 lg:pb-0">
            <SidebarNav />
          </div>
          <div className="hidden border-t border-slate-200 px-3 py-3 lg:block">
            <div className="flex items-center gap-2.5 px-2 pb-2">
              <span
                className="flex size-7 shrink-0 items-center justify-center rounded-full bg-slate-200 text-xs font-semibold text-slate-600 uppercase"
                aria-hidden="true"
              >
                {email.slice(0, 1)}
              </span>
              <span className="truncate text-sm text-slate-700" data-testid="user-email" title={email}>
                {email}
              </span>
            </div>
            <SignOutButton />
          </div>
        </aside>
        <div className="flex min-w-0 flex-1 flex-col lg:pl-60">
          <div className="flex items-center justify-end gap-3 border-b border-slate-200 bg-white px-4 py-2 lg:hidden">
            <span className="truncate text-sm text-slate-600">{email}</span>
            <SignOutButton />
          </div>
          <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-8 sm:px-6 lg:px-10">{children}</main>
        </div>
      </div>
    </Providers>
  );
}
