import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import { THREADS_PAGE_SIZE } from "@/components/threads/api";
import { ThreadsView } from "@/components/threads/threads-view";
import { toListResponse } from "@/lib/pagination";
import { getPanelSession } from "@/lib/panel/get-panel-session";
import { listThreads, ThreadListQuery, toPublicThread } from "@/lib/threads";

export const metadata: Metadata = { title: "Threads · Cockpit Gateway" };

export default async function ThreadsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  // The layout checks too, but layouts and pages render in parallel: each guards itself.
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const [page, params] = await Promise.all([
    listThreads(db, { companyId: session.companyId, query: ThreadListQuery.parse({ limit: THREADS_PAGE_SIZE }) }),
    searchParams,
  ]);
  const thread = typeof params.thread === "string" && params.thread ? params.thread : null;
  return (
    <ThreadsView initialPage={toListResponse(page, toPublicThread)} loadedAt={Date.now()} initialThreadId={thread} />
  );
}
