"use client";

import { keepPreviousData, useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Button, Spinner } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorMessage, Input } from "@/components/ui/input";
import { ApiError, errorMessage } from "@/components/panel/fetch-json";
import { Timestamp } from "@/components/panel/timestamp";
import { queryKeys } from "@/lib/query-keys";
import {
  fetchThread,
  fetchThreads,
  SOURCE_TABS,
  THREAD_ID_PATTERN,
  type PanelThread,
  type PublicThread,
  type ThreadPage,
} from "./api";

/** Longest search the API takes (lib/threads/schemas.ts). */
const SEARCH_MAX_CHARS = 200;

type Search = { kind: "id"; id: string } | { kind: "text"; q: string } | null;

/**
 * The company's threads, newest first, paged with "Load more", each with a line of its first
 * message. The search box finds threads whose messages contain the text, or one thread by its id.
 */
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
  const [search, setSearch] = useState<Search>(null);
  const q = search?.kind === "text" ? search.q : null;
  const searchId = search?.kind === "id" ? search.id : null;

  const list = useInfiniteQuery({
    queryKey: queryKeys.threads.list(source, q),
    queryFn: ({ pageParam }) => fetchThreads(source, pageParam, q),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.has_more ? last.last_id : null),
    // The server rendered the first page of every source; other tabs and searches are fetched.
    initialData: source === null && q === null ? { pages: [initialPage], pageParams: [null] } : undefined,
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

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const text = draft.trim();
    if (!text) return clearSearch();
    if (!THREAD_ID_PATTERN.test(text)) return setSearch({ kind: "text", q: text });
    setSearch({ kind: "id", id: text });
    // Fetched into the query's cache, so the list shows it without a second request.
    void queryClient
      .fetchQuery({ queryKey: queryKeys.threads.detail(text), queryFn: () => fetchThread(text), retry: false })
      // A failure (404 included) shows through `found`, which reads the same cache entry.
      .then(onSelect, () => undefined);
  };
  const clearSearch = () => {
    setDraft("");
    setSearch(null);
  };

  const threads: (PublicThread & Partial<Pick<PanelThread, "preview" | "match">>)[] =
    searchId !== null ? (found.data ? [found.data] : []) : (list.data?.pages ?? []).flatMap((p) => p.data);
  const notFound = found.error instanceof ApiError && found.error.status === 404;
  const pending = searchId === null ? list.isPending : found.isPending;

  return (
    <Card className="flex min-w-0 flex-col self-start" data-testid="thread-list">
      <div className="space-y-3 border-b border-slate-200 px-4 py-3">
        <form onSubmit={submit} className="flex gap-2" role="search">
          <label htmlFor="thread-search" className="sr-only">
            Search threads
          </label>
          <Input
            id="thread-search"
            type="search"
            data-testid="thread-search"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            placeholder="Text in a message, or thread_…"
            maxLength={SEARCH_MAX_CHARS}
            className="py-1.5 text-xs"
            autoComplete="off"
            spellCheck={false}
          />
          <Button type="submit" variant="secondary" size="sm">
            Search
          </Button>
        </form>
        {search !== null && (
          <div className="flex items-center justify-between gap-2 text-xs text-slate-500">
            <span
              className="truncate"
              data-testid="search-summary"
              title={search.kind === "text" ? search.q : undefined}
            >
              {search.kind === "id" ? "Thread by id" : `Mentioning “${search.q}”`}
            </span>
            <Button variant="ghost" size="sm" onClick={clearSearch} data-testid="clear-search">
              Show all threads
            </Button>
          </div>
        )}
        {searchId === null && (
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
                {/* A thread found by id comes without a preview: its id leads instead. */}
                {t.preview === undefined ? (
                  <span className="truncate font-mono text-xs text-slate-900">{t.id}</span>
                ) : (
                  <span
                    className={cn("line-clamp-2 text-sm", t.preview ? "text-slate-900" : "text-slate-400 italic")}
                    data-testid="thread-preview"
                  >
                    {t.preview ?? "No text messages"}
                  </span>
                )}
                <Badge className="shrink-0">{t.source}</Badge>
              </div>
              {t.match && t.match !== t.preview && (
                <div
                  className="mt-1 line-clamp-2 border-l-2 border-amber-300 pl-2 text-xs text-slate-600"
                  data-testid="thread-match"
                >
                  {t.match}
                </div>
              )}
              <div className="mt-1 flex items-center gap-2 text-xs text-slate-500">
                <span className="truncate font-mono text-[11px]" title={t.id}>
                  {t.id}
                </span>
                <span className="ml-auto shrink-0">
                  <Timestamp unix={t.created_at} />
                </span>
              </div>
            </button>
          </li>
        ))}
      </ul>
      {threads.length === 0 && !pending && (
        <div data-testid="threads-empty">
          {search?.kind === "id" ? (
            <EmptyState title={`No thread with id ${search.id} in your company.`}>
              Check the id, or search by a message&apos;s text instead.
            </EmptyState>
          ) : search?.kind === "text" ? (
            <EmptyState title={`No thread mentions “${search.q}”.`}>
              The search looks for this text in every message of your company&apos;s threads
              {source ? " from this source" : ""}, in any case.
            </EmptyState>
          ) : (
            <EmptyState
              title={source ? "No threads from this source yet." : "No threads yet."}
              action={
                <Link href="/playground" className="text-sm font-medium text-indigo-600 hover:text-indigo-500">
                  Open the Playground →
                </Link>
              }
            >
              A thread is created by each conversation: a chat in the Playground, POST /v1/threads, a chat completion or
              a webhook event.
            </EmptyState>
          )}
        </div>
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
