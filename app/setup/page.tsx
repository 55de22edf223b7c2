import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { db } from "@/db/client";
import { Logo } from "@/components/panel/logo";
import { SetupForm } from "@/components/setup/setup-form";
import { requestIsFromLoopback } from "@/lib/net/loopback-peer";
import { isSetupPending, SETUP_LINK_HINT, setupRefusal, setupTokenState } from "@/lib/setup";

export const metadata: Metadata = { title: "Set up · Cockpit Gateway" };

function Notice({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="space-y-3 text-sm text-slate-600" data-testid="setup-notice">
      <h2 className="font-medium text-slate-900">{title}</h2>
      {children}
    </div>
  );
}

async function SetupBody({ token }: { token: string | undefined }) {
  if (!requestIsFromLoopback()) {
    return (
      <Notice title="Setup only from the server's machine">
        <p>
          The setup link works in a browser on the machine that runs the gateway. Elsewhere, create the admin with{" "}
          <code>npm run admin -- user create</code>.
        </p>
      </Notice>
    );
  }
  if (!(await isSetupPending(db))) {
    return (
      <Notice title="Setup is done">
        <p>The panel already has an admin.</p>
        <Link href="/login" className="font-medium text-indigo-600 hover:underline">
          Sign in
        </Link>
      </Notice>
    );
  }
  if (!token) {
    return (
      <Notice title="Open the setup link">
        <p>
          Open the setup link <code>npm start</code> printed as its last line. {SETUP_LINK_HINT}
        </p>
      </Notice>
    );
  }
  const { state } = await setupTokenState(db, { token });
  if (state !== "valid") {
    return (
      <Notice title="This setup link cannot be used">
        <p data-testid="setup-refusal">{setupRefusal(state).message}</p>
      </Notice>
    );
  }
  return <SetupForm token={token} />;
}

export default async function SetupPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const raw = (await searchParams).token;
  const token = typeof raw === "string" && raw.length <= 200 ? raw : undefined;
  return (
    <main className="flex min-h-screen flex-col items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-8 flex flex-col items-center text-center">
          <Logo className="size-10" />
          <h1 className="mt-4 text-xl font-semibold tracking-tight text-slate-900">Set up Cockpit Gateway</h1>
          <p className="mt-1 text-sm text-slate-500">Choose the panel admin&apos;s email and password.</p>
        </div>
        <div className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
          <SetupBody token={token} />
        </div>
      </div>
    </main>
  );
}
