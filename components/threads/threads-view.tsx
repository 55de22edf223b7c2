"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { errorMessage } from "@/components/panel/fetch-json";
import { Timestamp } from "@/components/panel/timestamp";
import { queryKeys } from "@/lib/query-keys";
import { fetchThread, type PublicThread, type ThreadPage } from "./api";
import { MessageList } from "./message-list";
import { RunsTable } from "./runs-table";
import { ThreadList } from "./thread-list";

/** The selection lives in the URL (`?thread=`), so a reload or a shared link opens the same thread. */
function rememberSelection(threadId: string) {
  const url = new URL(window.location.href);
  url.searchParams.set("thread", threadId);
  window.history.replaceState(null, "", url);
}

export function ThreadsView({
  initialPage,
  loadedAt,
  initialThreadId,
}: {
  initialPage: ThreadPage;
  loadedAt: number;
  initialThreadId: string | null;
}) {
  const [selected, setSelected] = useState<{ id: string; thread?: PublicThread } | null>(
    initialThreadId ? { id: initialThreadId } : null,
  );
  const select = (thread: PublicThread) => {
    setSelected({ id: thread.id, thread });
    rememberSelection(thread.id);
  };

  return (
    <>
      <PageHeader
        title="Threads"
        description="Every thread of your company: threads API, chat completions and webhook events. Pick one to read its messages and see what each run did, step by step."
      />
      <div className="grid gap-6 lg:grid-cols-[18rem_minmax(0,1fr)]">
        <ThreadList initialPage={initialPage} loadedAt={loadedAt} selectedId={selected?.id ?? null} onSelect={select} />
        <div className="min-w-0">
          {selected ? (
            <ThreadDetail key={selected.id} threadId={selected.id} listed={selected.thread} />
          ) : (
            <Card className="px-5 py-16 text-center text-sm text-slate-500">
              Select a thread to see its messages and runs.
            </Card>
          )}
        </div>
      </div>
    </>
  );
}

function ThreadDetail({ threadId, listed }: { threadId: string; listed: PublicThread | undefined }) {
  const [runId, setRunId] = useState<string | null>(null);
  const query = useQuery({
    queryKey: queryKeys.threads.detail(threadId),
    queryFn: () => fetchThread(threadId),
    initialData: listed,
    retry: false,
  });
  const thread = query.data;
  if (query.isError) return <ErrorMessage>{errorMessage(query.error)}</ErrorMessage>;

  const openRun = (id: string) => {
    setRunId(id);
    document.getElementById("thread-runs")?.scrollIntoView({ behavior: "smooth", block: "start" });
  };
  const metadata = Object.entries(thread?.metadata ?? {});
  return (
    <div className="space-y-6" data-testid="thread-detail" data-thread-id={threadId}>
      <Card className="px-5 py-4">
        <div className="flex flex-wrap items-center gap-2">
          <h2 className="font-mono text-sm font-semibold text-slate-900">{threadId}</h2>
          {thread && <Badge data-testid="thread-source">{thread.source}</Badge>}
          {thread && (
            <span className="text-xs text-slate-500">
              created <Timestamp unix={thread.created_at} />
            </span>
          )}
        </div>
        {metadata.length > 0 && (
          <dl className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs">
            {metadata.map(([k, v]) => (
              <div key={k} className="flex gap-1">
                <dt className="text-slate-500">{k}</dt>
                <dd className="font-mono text-slate-700">{typeof v === "string" ? v : JSON.stringify(v)}</dd>
              </div>
            ))}
          </dl>
        )}
      </Card>
      <MessageList threadId={threadId} onOpenRun={openRun} />
      <div id="thread-runs" className="scroll-mt-4">
        <RunsTable threadId={threadId} selectedRunId={runId} onSelect={setRunId} />
      </div>
    </div>
  );
}
