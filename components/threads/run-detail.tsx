"use client";

import { useQuery } from "@tanstack/react-query";
import { Badge } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/input";
import { CopyId } from "@/components/panel/copy-id";
import { errorMessage } from "@/components/panel/fetch-json";
import { formatMs } from "@/components/panel/format";
import { queryKeys } from "@/lib/query-keys";
import { fetchRun, fetchSteps, isActiveRun, type PublicRun, type PublicStep } from "./api";
import { CandidatesTable, type Candidate } from "./candidates-table";
import { RunStatusBadge } from "./run-status-badge";

const POLL_MS = 2000;

/**
 * One run: answer, error, fired rules and steps as a timeline. `listed` is the runs table's copy; a
 * run reached from an older message is fetched on its own.
 */
export function RunDetail({
  threadId,
  runId,
  listed,
}: {
  threadId: string;
  runId: string;
  listed: PublicRun | undefined;
}) {
  const own = useQuery({
    queryKey: queryKeys.threads.run(threadId, runId),
    queryFn: () => fetchRun(threadId, runId),
    enabled: !listed,
    refetchInterval: (q) => (q.state.data && isActiveRun(q.state.data) ? POLL_MS : false),
  });
  const run = listed ?? own.data;
  const steps = useQuery({
    queryKey: queryKeys.threads.steps(threadId, runId, run?.status ?? ""),
    queryFn: () => fetchSteps(threadId, runId),
    enabled: run !== undefined,
  });

  return (
    <Card className="mt-6" data-testid="run-detail" data-run-id={runId}>
      <CardHeader
        title={
          <span className="flex flex-wrap items-center gap-2">
            Run <CopyId id={runId} label="run id" className="font-normal" />
            {run && <RunStatusBadge status={run.status} />}
          </span>
        }
        description={run ? `${run.model} · ${formatMs(run.latency_ms)}` : undefined}
      />
      {own.isError && <ErrorMessage className="m-4">Could not load the run: {errorMessage(own.error)}</ErrorMessage>}
      {run && hasSummary(run) && <RunSummary run={run} />}
      <div className="px-5 py-4">
        <h3 className="mb-3 text-xs font-medium tracking-wide text-slate-500 uppercase">Steps</h3>
        {steps.isError && <ErrorMessage>Could not load the steps: {errorMessage(steps.error)}</ErrorMessage>}
        {steps.isPending && run && <Spinner className="size-4 text-slate-400" />}
        {steps.data?.data.length === 0 && (
          <p className="text-sm text-slate-500">
            {run && isActiveRun(run) ? "The run records its steps when it ends." : "This run recorded no steps."}
          </p>
        )}
        {steps.data && steps.data.data.length > 0 && (
          <StepTimeline steps={steps.data.data} latencyMs={run?.latency_ms ?? 0} />
        )}
      </div>
    </Card>
  );
}

const hasSummary = (run: PublicRun) =>
  Boolean(
    run.error || run.content || run.applied_rules.length > 0 || run.citations.length > 0 || run.tool_calls.length > 0,
  );

function RunSummary({ run }: { run: PublicRun }) {
  return (
    <div className="space-y-2 border-b border-slate-200 px-5 py-4 text-sm">
      {run.error && (
        <ErrorMessage data-testid="run-error">
          {run.error.code}: {run.error.message}
        </ErrorMessage>
      )}
      {run.content && (
        <p className="whitespace-pre-wrap text-slate-800" data-testid="run-content">
          {run.content}
        </p>
      )}
      {run.applied_rules.length + run.citations.length + run.tool_calls.length > 0 && (
        <div className="flex flex-wrap gap-1.5">
          {(run.applied_rules as { id: string; name: string; action: string }[]).map((r) => (
            <Badge key={r.id} tone="amber">
              {r.action}: {r.name}
            </Badge>
          ))}
          {run.citations.length > 0 && <Badge>{run.citations.length} citations</Badge>}
          {run.tool_calls.length > 0 && <Badge>{run.tool_calls.length} tool calls</Badge>}
        </div>
      )}
    </div>
  );
}

/** Each step on one line: where it sits in the run (offset, duration) as a bar scaled to the run's latency. */
function StepTimeline({ steps, latencyMs }: { steps: PublicStep[]; latencyMs: number }) {
  // A run's latency covers its steps; the max guards runs stored without one (0) or with rounding.
  const total = Math.max(latencyMs, ...steps.map((s) => s.offset_ms + s.duration_ms), 1);
  return (
    <ol className="space-y-3" data-testid="step-timeline">
      {steps.map((step) => (
        <li
          key={step.id}
          data-testid="run-step"
          data-step-type={step.type}
          className="rounded-md border border-slate-200 px-3 py-2"
        >
          <div className="flex items-center gap-3">
            <Badge tone="indigo" className="w-24 justify-center" data-testid="step-type">
              {step.type}
            </Badge>
            <div className="relative h-2 flex-1 rounded-full bg-slate-100" aria-hidden="true">
              <div
                className="absolute inset-y-0 min-w-1 rounded-full bg-indigo-500"
                style={{ left: `${(step.offset_ms / total) * 100}%`, width: `${(step.duration_ms / total) * 100}%` }}
              />
            </div>
            <span className="w-40 text-right text-xs text-slate-500 tabular-nums" data-testid="step-timing">
              +{formatMs(step.offset_ms)} · {formatMs(step.duration_ms)}
            </span>
          </div>
          <StepDetail detail={step.detail} />
        </li>
      ))}
    </ol>
  );
}

function compactValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.length === 0) return "none";
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== "object")) return value.join(", ");
  // Profiles, rules, documents: their names say enough at a glance; the raw JSON has the rest.
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((v) => typeof (v as { name?: unknown } | null)?.name === "string")
  ) {
    return value.map((v) => (v as { name: string }).name).join(", ");
  }
  return JSON.stringify(value);
}

function StepDetail({ detail }: { detail: Record<string, unknown> }) {
  const candidates = Array.isArray(detail.candidates) ? (detail.candidates as Candidate[]) : null;
  const entries = Object.entries(detail).filter(([key]) => !(key === "candidates" && candidates));
  if (entries.length === 0 && !candidates) return null;
  return (
    <div className="mt-2 min-w-0">
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs sm:pl-27" data-testid="step-detail">
        {entries.map(([key, value]) => (
          <div key={key} className="contents">
            <dt className="text-slate-500">{key}</dt>
            <dd className="truncate font-mono text-slate-800" title={compactValue(value)}>
              {compactValue(value)}
            </dd>
          </div>
        ))}
      </dl>
      {/* Full width: six columns do not fit beside the step's badge. */}
      {candidates && <CandidatesTable candidates={candidates} />}
      <details className="mt-1 text-xs sm:pl-27">
        <summary className="cursor-pointer text-slate-500 hover:text-slate-700">Raw JSON</summary>
        <pre className="mt-1 max-h-64 overflow-auto rounded bg-slate-50 p-2 text-slate-700" data-testid="step-raw">
          {JSON.stringify(detail, null, 2)}
        </pre>
      </details>
    </div>
  );
}
