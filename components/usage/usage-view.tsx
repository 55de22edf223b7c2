"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { errorMessage } from "@/components/panel/fetch-json";
import { queryKeys } from "@/lib/query-keys";
import { fetchUsagePage, KNOWN_SOURCES, type UsagePage } from "./api";
import { BalanceCards } from "./balance-cards";
import { DailySpendChart } from "./daily-spend-chart";
import { LedgerTable } from "./ledger-table";
import { SourceFilter } from "./source-filter";

export function UsageView({ initialPage, loadedAt, days }: { initialPage: UsagePage; loadedAt: number; days: number }) {
  const [source, setSource] = useState<string | null>(null);
  const query = useInfiniteQuery({
    queryKey: queryKeys.usage.ledger(source),
    queryFn: ({ pageParam }) => fetchUsagePage(source, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.has_more ? last.last_id : null),
    // The server rendered the unfiltered first page; any other filter is fetched.
    initialData: source === null ? { pages: [initialPage], pageParams: [null] } : undefined,
    initialDataUpdatedAt: loadedAt,
    // Keep the previous rows on screen while another filter loads.
    placeholderData: keepPreviousData,
  });

  const pages = query.data?.pages ?? [];
  // Balance and daily spend come with every page and ignore the filter: the newest answer wins.
  const summary = pages[0] ?? initialPage;
  const entries = pages.flatMap((p) => p.data);
  const sources = [
    ...new Set([
      ...KNOWN_SOURCES,
      ...initialPage.data.map((e) => e.source),
      ...summary.daily.map((d) => d.source),
      ...entries.map((e) => e.source),
    ]),
  ].sort();

  return (
    <>
      <PageHeader title="Usage" description="Your company's credit balance and every change to it. 1 O₮ = $0.001." />
      <BalanceCards balanceOt={summary.balance_ot} daily={summary.daily} nowMs={loadedAt} days={days} />
      <Card className="mt-6">
        <CardHeader title="Daily spend" description={`Debits per day and source over the last ${days} days (UTC)`} />
        <div className="px-5 py-4">
          <DailySpendChart daily={summary.daily} nowMs={loadedAt} days={days} />
        </div>
      </Card>
      <Card className="mt-6">
        <CardHeader
          title="Ledger"
          description="Newest first. Credits are green, debits are what your keys spent."
          actions={
            <SourceFilter
              value={source}
              options={sources}
              onChange={setSource}
              pending={query.isFetching && query.isPlaceholderData}
            />
          }
        />
        {query.isError && (
          <ErrorMessage className="mx-5 mt-4">Could not load the ledger: {errorMessage(query.error)}</ErrorMessage>
        )}
        <div className={query.isPlaceholderData ? "opacity-60 transition-opacity" : undefined}>
          <LedgerTable entries={entries} loading={query.isPending} filtered={source !== null} />
        </div>
        {entries.length > 0 && (
          <div className="flex items-center justify-between border-t border-slate-200 px-5 py-3 text-sm text-slate-500">
            <span>
              {entries.length} {entries.length === 1 ? "entry" : "entries"}
              {query.hasNextPage ? " shown" : ""}
            </span>
            {query.hasNextPage && (
              <Button
                variant="secondary"
                size="sm"
                onClick={() => void query.fetchNextPage()}
                disabled={query.isFetchingNextPage}
              >
                {query.isFetchingNextPage && <Spinner className="size-3.5" />}
                Load more
              </Button>
            )}
          </div>
        )}
      </Card>
    </>
  );
}
