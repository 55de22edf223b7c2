import { RUN_STATUS, THREAD_SOURCE, type RunStatus } from "@/db/enums";
import type { PublicRun, toPublicStep } from "@/lib/runs/to-public";
import type { toPanelThread, toPublicMessage, toPublicThread } from "@/lib/threads/to-public";
import type { BadgeTone } from "@/components/ui/badge";
import { fetchJson, type ListPage } from "@/components/panel/fetch-json";

export type PublicThread = ReturnType<typeof toPublicThread>;
export type PublicMessage = ReturnType<typeof toPublicMessage>;
export type PublicStep = ReturnType<typeof toPublicStep>;
export type { PublicRun };
export type PanelThread = ReturnType<typeof toPanelThread>;
/** The panel's list: each thread with its preview line (and the matching message's, with a search). */
export type ThreadPage = ListPage<PanelThread>;

export const THREADS_PAGE_SIZE = 25;
const MESSAGES_PAGE_SIZE = 50;
const RUNS_PAGE_SIZE = 20;
/** The API's maximum; a run records one step per stage and tool call, far fewer than this. */
const STEPS_PAGE_SIZE = 100;

export const SOURCE_TABS: { value: string | null; label: string }[] = [
  { value: null, label: "All" },
  { value: THREAD_SOURCE.api, label: "API" },
  { value: THREAD_SOURCE.completions, label: "Completions" },
  { value: THREAD_SOURCE.webhook, label: "Webhook" },
];

export const RUN_STATUS_TONE: Record<RunStatus, BadgeTone> = {
  [RUN_STATUS.queued]: "neutral",
  [RUN_STATUS.in_progress]: "indigo",
  [RUN_STATUS.completed]: "green",
  [RUN_STATUS.failed]: "red",
  [RUN_STATUS.cancelled]: "amber",
};

export const isActiveRun = (run: PublicRun) =>
  run.status === RUN_STATUS.queued || run.status === RUN_STATUS.in_progress;

const threadPath = (threadId: string) => `/api/panel/threads/${encodeURIComponent(threadId)}`;

/** A thread id as the API makes them: the search box looks such text up by id instead of by content. */
export const THREAD_ID_PATTERN = /^thread_[A-Za-z0-9]+$/;

export function fetchThreads(
  source: string | null,
  after: string | null,
  q: string | null = null,
): Promise<ThreadPage> {
  const params = new URLSearchParams({ limit: String(THREADS_PAGE_SIZE) });
  if (source) params.set("source", source);
  if (q) params.set("q", q);
  if (after) params.set("after", after);
  return fetchJson<ThreadPage>(`/api/panel/threads?${params}`);
}

export function fetchThread(threadId: string): Promise<PublicThread> {
  return fetchJson<PublicThread>(threadPath(threadId));
}

/** Oldest first: a conversation reads top to bottom. */
export function fetchMessages(threadId: string, after: string | null): Promise<ListPage<PublicMessage>> {
  const params = new URLSearchParams({ limit: String(MESSAGES_PAGE_SIZE), order: "asc" });
  if (after) params.set("after", after);
  return fetchJson<ListPage<PublicMessage>>(`${threadPath(threadId)}/messages?${params}`);
}

export function fetchRuns(threadId: string, after: string | null): Promise<ListPage<PublicRun>> {
  const params = new URLSearchParams({ limit: String(RUNS_PAGE_SIZE) });
  if (after) params.set("after", after);
  return fetchJson<ListPage<PublicRun>>(`${threadPath(threadId)}/runs?${params}`);
}

export function fetchRun(threadId: string, runId: string): Promise<PublicRun> {
  return fetchJson<PublicRun>(`${threadPath(threadId)}/runs/${encodeURIComponent(runId)}`);
}

export function fetchSteps(threadId: string, runId: string): Promise<ListPage<PublicStep>> {
  return fetchJson<ListPage<PublicStep>>(
    `${threadPath(threadId)}/runs/${encodeURIComponent(runId)}/steps?limit=${STEPS_PAGE_SIZE}`,
  );
}
