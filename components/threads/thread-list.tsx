"use client";

import { keepPreviousData, useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Button, Spinner } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { ErrorMessage, Input } from "@/components/ui/input";
import { ApiError, errorMessage } from "@/components/panel/fetch-json";
import { Timestamp } from "@/components/panel/timestamp";
import { queryKeys } from "@/lib/query-keys";
import { fetchThread, fetchThreads, SOURCE_TABS, type PublicThread, type ThreadPage } from "./api";

/** The company's threads, newest first, paged with "Load more"; a search by exact id shows just that thread. */
export function ThreadList({
  initialPage,
  loadedAt,
  selectedId,
  onSelect,
}: {
  initialPage: ThreadPage;
  loadedAt: number;
  selectedId: string | null;
  onSelect: (thread: PublicThread) => void;
}) {
  const queryClient = useQueryClient();
  const [source, setSource] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  const [searchId, setSearchId] = useState<string | null>(null);

  const list = useInfiniteQuery({
    queryKey: queryKeys.threads.list(source),
    queryFn: ({ pageParam }) => fetchThreads(source, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.has_more ? last.last_id : null),
    // The server rendered the first page of every source; other tabs are fetched.
    initialData: source === null ? { pages: [initialPage], pageParams: [null] } : undefined,
    initialDataUpdatedAt: loadedAt,
    placeholderData: keepPreviousData,
    enabled: searchId === null,
  });
  const found = useQuery({
    queryKey: queryKeys.threads.detail(searchId ?? ""),
    queryFn: () => fetchThread(searchId!),
    enabled: searchId !== null,
    retry: false,
  });

  const search = (e: FormEvent) => {
    e.preventDefault();
    const id = draft.trim();
    if (!id) return clearSearch();
    setSearchId(id);
    // Fetched into the query's cache, so the list shows it without a second request.
    void queryClient
      .fetchQuery({ queryKey: queryKeys.threads.detail(id), queryFn: () => fetchThread(id), retry: false })
      // A failure (404 included) shows through `found`, which reads the same cache entry.
      .then(onSelect, () => undefined);
  };
  const clearSearch = () => {
    setDraft("");
    setSearchId(null);
  };

  const threads =
    searchId !== null ? (found.data ? [found.data] : []) : (list.data?.pages ?? []).flatMap((p) => p.data);
  const notFound = found.error instanceof ApiError && found.error.status === 404;

  return (
    <Card className="flex min-w-0 flex-col self-start" data-testid="thread-list">
      <div className="space-y-3 border-b border-slate-200 px-4 py-3">
        <form onSubmit={search} className="flex gap-2" role="search">
          <label htmlFor="thread-search" className="sr-only">
            Thread id
          </label>
          <Input
            id="thread-search"
            data-testid="thread-search"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder="Thread id (thread_…)"
            className="py-1.5 font-mono text-xs"
            autoComplete="off"
            spellCheck={false}
          />
          <Button type="submit" variant="secondary" size="sm">
            Find
          </Button>
        </form>
        {searchId === null ? (
          <div role="tablist" aria-label="Source" className="flex gap-1 text-xs">
            {SOURCE_TABS.map((tab) => (
              <button
                key={tab.label}
                type="button"
                role="tab"
                aria-selected={source === tab.value}
                data-testid={`source-tab-${tab.value ?? "all"}`}
                onClick={() => setSource(tab.value)}
                className={cn(
                  "rounded-md px-2 py-1 font-medium transition-colors",
                  source === tab.value
                    ? "bg-indigo-50 text-indigo-700"
                    : "text-slate-600 hover:bg-slate-100 hover:text-slate-900",
                )}
              >
                {tab.label}
              </button>
            ))}
            {list.isFetching && list.isPlaceholderData && (
              <Spinner className="ml-auto size-3.5 self-center text-slate-400" />
            )}
          </div>
        ) : (
          <div className="flex items-center justify-between text-xs text-slate-500">
            <span>Search by id</span>
            <Button variant="ghost" size="sm" onClick={clearSearch} data-testid="clear-search">
              Show all threads
            </Button>
          </div>
        )}
      </div>
      {list.isError && searchId === null && (
        <ErrorMessage className="m-3">Could not load threads: {errorMessage(list.error)}</ErrorMessage>
      )}
      {found.isError && !notFound && <ErrorMessage className="m-3">{errorMessage(found.error)}</ErrorMessage>}
      <ul className={cn("divide-y divide-slate-100", list.isPlaceholderData && "opacity-60 transition-opacity")}>
        {threads.map((t) => (
          <li key={t.id}>
            <button
              type="button"
              onClick={() => onSelect(t)}
              aria-current={t.id === selectedId ? "true" : undefined}
              data-testid="thread-row"
              data-thread-id={t.id}
              className={cn(
                "block w-full px-4 py-2.5 text-left transition-colors",
                t.id === selectedId ? "bg-indigo-50/70" : "hover:bg-slate-50",
              )}
            >
              <div className="flex items-center justify-between gap-2">
                <span className="truncate font-mono text-xs text-slate-900" title={t.id}>
                  {t.id}
                </span>
                <Badge>{t.source}</Badge>
              </div>
              <div className="mt-0.5 text-xs text-slate-500">
                <Timestamp unix={t.created_at} />
              </div>
            </button>
          </li>
        ))}
      </ul>
      {threads.length === 0 && !(searchId === null ? list.isPending : found.isPending) && (
        <p className="px-4 py-10 text-center text-sm text-slate-500" data-testid="threads-empty">
          {searchId !== null ? `No thread with id ${searchId} in your company.` : "No threads yet."}
        </p>
      )}
      {searchId === null && list.hasNextPage && (
        <div className="border-t border-slate-200 px-4 py-3">
          <Button
            variant="secondary"
            size="sm"
            className="w-full"
            onClick={() => void list.fetchNextPage()}
            disabled={list.isFetchingNextPage}
          >
            {list.isFetchingNextPage && <Spinner className="size-3.5" />}
            Load more
          </Button>
        </div>
      )}
    </Card>
  );
}
