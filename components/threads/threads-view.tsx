"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorMessage } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { CopyId } from "@/components/panel/copy-id";
import { errorMessage } from "@/components/panel/fetch-json";
import { Timestamp } from "@/components/panel/timestamp";
import { queryKeys } from "@/lib/query-keys";
import { fetchThread, type PublicThread, type ThreadPage } from "./api";
import { MessageList } from "./message-list";
import { RunsTable } from "./runs-table";
import { ThreadList } from "./thread-list";

/** The selection lives in the URL (`?thread=&run=`), so a reload or a shared link opens the same run. */
function rememberSelection(threadId: string, runId: string | null) {
  const url = new URL(window.location.href);
  url.searchParams.set("thread", threadId);
  if (runId) url.searchParams.set("run", runId);
  else url.searchParams.delete("run");
  window.history.replaceState(null, "", url);
}

export function ThreadsView({
  initialPage,
  loadedAt,
  initialThreadId,
  initialRunId,
}: {
  initialPage: ThreadPage;
  loadedAt: number;
  initialThreadId: string | null;
  initialRunId: string | null;
}) {
  const [selected, setSelected] = useState<{ id: string; thread?: PublicThread } | null>(
    initialThreadId ? { id: initialThreadId } : null,
  );
  const select = (thread: PublicThread) => {
    setSelected({ id: thread.id, thread });
    rememberSelection(thread.id, null);
  };

  return (
    <>
      <PageHeader
        title="Threads"
        description="Every thread of your company: threads API, chat completions and webhook events. Search their messages, pick one to read it and see what each run did, step by step."
      />
      <div className="grid gap-6 lg:grid-cols-[20rem_minmax(0,1fr)]">
        <ThreadList initialPage={initialPage} loadedAt={loadedAt} selectedId={selected?.id ?? null} onSelect={select} />
        <div className="min-w-0">
          {selected ? (
            <ThreadDetail
              key={selected.id}
              threadId={selected.id}
              listed={selected.thread}
              // Only the linked thread opens on the linked run.
              initialRunId={selected.id === initialThreadId ? initialRunId : null}
            />
          ) : (
            <Card>
              <EmptyState title="Select a thread to see its messages and runs.">
                Each run shows its steps: profiles, retrieval with its ranked candidates, guardrails, tool calls and the
                model call.
              </EmptyState>
            </Card>
          )}
        </div>
      </div>
    </>
  );
}

function ThreadDetail({
  threadId,
  listed,
  initialRunId,
}: {
  threadId: string;
  listed: PublicThread | undefined;
  initialRunId: string | null;
}) {
  const [runId, setRunId] = useState<string | null>(initialRunId);
  const query = useQuery({
    queryKey: queryKeys.threads.detail(threadId),
    queryFn: () => fetchThread(threadId),
    initialData: listed,
    retry: false,
  });
  // A deep link to a run lands on its steps, below the conversation.
  useEffect(() => {
    if (initialRunId) document.getElementById("thread-runs")?.scrollIntoView({ block: "start" });
  }, [initialRunId]);
  const thread = query.data;
  if (query.isError) return <ErrorMessage>{errorMessage(query.error)}</ErrorMessage>;

  const selectRun = (id: string) => {
    setRunId(id);
    rememberSelection(threadId, id);
  };
  const openRun = (id: string) => {
    selectRun(id);
    document.getElementById("thread-runs")?.scrollIntoView({ behavior: "smooth", block: "start" });
  };
  const metadata = Object.entries(thread?.metadata ?? {});
  return (
    <div className="space-y-6" data-testid="thread-detail" data-thread-id={threadId}>
      <Card className="px-5 py-4">
        <div className="flex flex-wrap items-center gap-2">
          <h2 className="text-sm font-semibold text-slate-900">Thread</h2>
          <CopyId id={threadId} label="thread id" />
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
        <RunsTable threadId={threadId} selectedRunId={runId} onSelect={selectRun} />
      </div>
    </div>
  );
}
