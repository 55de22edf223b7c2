import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import { THREADS_PAGE_SIZE } from "@/components/threads/api";
import { ThreadsView } from "@/components/threads/threads-view";
import { toListResponse } from "@/lib/pagination";
import { getPanelSession } from "@/lib/panel/get-panel-session";
import { listPanelThreads, PanelThreadListQuery } from "@/lib/threads";

export const metadata: Metadata = { title: "Threads · Cockpit Gateway" };

const param = (v: string | string[] | undefined) => (typeof v === "string" && v ? v : null);

export default async function ThreadsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  // The layout checks too, but layouts and pages render in parallel: each guards itself.
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const [page, params] = await Promise.all([
    listPanelThreads(db, {
      companyId: session.companyId,
      query: PanelThreadListQuery.parse({ limit: THREADS_PAGE_SIZE }),
    }),
    searchParams,
  ]);
  return (
    <ThreadsView
      initialPage={toListResponse(page, (t) => t)}
      loadedAt={Date.now()}
      initialThreadId={param(params.thread)}
      initialRunId={param(params.run)}
    />
  );
}
