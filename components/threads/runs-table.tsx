"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { Button, Spinner } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { ErrorMessage } from "@/components/ui/input";
import { Table, TableMessage, TBody, TD, TH, THead, TR } from "@/components/ui/table";
import { errorMessage } from "@/components/panel/fetch-json";
import { formatInt, formatMs, formatOt } from "@/components/panel/format";
import { Timestamp } from "@/components/panel/timestamp";
import { queryKeys } from "@/lib/query-keys";
import { fetchRuns, isActiveRun } from "./api";
import { RunDetail } from "./run-detail";
import { RunStatusBadge } from "./run-status-badge";

const COLUMNS = 6;
/** While a run is queued or in progress the list refreshes, so its status and steps land on their own. */
const ACTIVE_POLL_MS = 2000;

/** The thread's runs, newest first; a row selects the run whose steps show below (the newest by default). */
export function RunsTable({
  threadId,
  selectedRunId,
  onSelect,
}: {
  threadId: string;
  selectedRunId: string | null;
  onSelect: (runId: string) => void;
}) {
  const query = useInfiniteQuery({
    queryKey: queryKeys.threads.runs(threadId),
    queryFn: ({ pageParam }) => fetchRuns(threadId, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.has_more ? last.last_id : null),
    refetchInterval: (q) => (q.state.data?.pages.some((p) => p.data.some(isActiveRun)) ? ACTIVE_POLL_MS : false),
  });
  const runs = (query.data?.pages ?? []).flatMap((p) => p.data);
  const selected = selectedRunId ?? runs[0]?.id ?? null;

  return (
    <>
      <Card data-testid="runs">
        <CardHeader
          title="Runs"
          description="Newest first. Cost in O₮ (1 O₮ = $0.001); tokens are prompt + completion."
        />
        {query.isError && <ErrorMessage className="m-4">Could not load runs: {errorMessage(query.error)}</ErrorMessage>}
        <Table data-testid="runs-table">
          <THead>
            <tr>
              <TH>Status</TH>
              <TH>Model</TH>
              <TH align="right">Tokens</TH>
              <TH align="right">Cost (O₮)</TH>
              <TH align="right">Latency</TH>
              <TH>Created</TH>
            </tr>
          </THead>
          <TBody>
            {query.isPending ? (
              <TableMessage colSpan={COLUMNS}>
                <Spinner className="mx-auto size-4 text-slate-400" />
              </TableMessage>
            ) : runs.length === 0 ? (
              <TableMessage colSpan={COLUMNS}>No runs on this thread.</TableMessage>
            ) : (
              runs.map((run) => (
                <TR
                  key={run.id}
                  data-testid="run-row"
                  data-run-id={run.id}
                  aria-selected={run.id === selected}
                  onClick={() => onSelect(run.id)}
                  className={cn("cursor-pointer", run.id === selected && "bg-indigo-50/70 hover:bg-indigo-50/70")}
                >
                  <TD>
                    <button
                      type="button"
                      className="flex items-center gap-2 text-left"
                      onClick={() => onSelect(run.id)}
                      aria-label={`Show steps of ${run.id}`}
                    >
                      <RunStatusBadge status={run.status} />
                    </button>
                  </TD>
                  <TD className="font-mono text-xs" data-testid="run-model">
                    {run.model}
                  </TD>
                  <TD
                    align="right"
                    title={`${formatInt(run.usage.prompt_tokens)} prompt + ${formatInt(run.usage.completion_tokens)} completion`}
                  >
                    {formatInt(run.usage.total_tokens)}
                  </TD>
                  <TD align="right" data-testid="run-cost">
                    {formatOt(run.cost_ot)}
                  </TD>
                  <TD align="right" data-testid="run-latency">
                    {isActiveRun(run) ? "…" : formatMs(run.latency_ms)}
                  </TD>
                  <TD>
                    <Timestamp unix={run.created_at} style="relative" />
                  </TD>
                </TR>
              ))
            )}
          </TBody>
        </Table>
        {query.hasNextPage && (
          <div className="border-t border-slate-200 px-5 py-3">
            <Button
              variant="secondary"
              size="sm"
              onClick={() => void query.fetchNextPage()}
              disabled={query.isFetchingNextPage}
            >
              {query.isFetchingNextPage && <Spinner className="size-3.5" />}
              Load more
            </Button>
          </div>
        )}
      </Card>
      {selected && <RunDetail threadId={threadId} runId={selected} listed={runs.find((r) => r.id === selected)} />}
    </>
  );
}
