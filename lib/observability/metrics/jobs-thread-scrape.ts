import type { MessagePort, Worker } from "node:worker_threads";
import { metrics } from "@/lib/process-channels.mjs";

/**
 * The jobs thread keeps its own families (a worker thread has its own globals): each scrape of
 * the main thread asks it for them by message and sums them in. Unanswered within
 * ANSWER_WAIT_MS (a thread busy or gone), the scrape goes on without them.
 */
const ANSWER_WAIT_MS = 2_000;

interface ScrapeRequest {
  type: "metrics-scrape";
  id: number;
}
interface ScrapeAnswer {
  type: "metrics-scraped";
  id: number;
  metrics: unknown[];
}

const isAnswer = (m: unknown): m is ScrapeAnswer => (m as ScrapeAnswer | null)?.type === "metrics-scraped";

/** Whether this process serves metrics (the jobs thread then keeps families for it). */
export const metricsOn = (): boolean => metrics.get() !== undefined;

/** The main thread's half: scrapes ask `worker`, the running jobs thread, for its families. */
export function scrapeJobsThread(worker: Worker): void {
  const m = metrics.get();
  if (!m) return;
  let nextId = 0;
  const pending = new Map<number, (json: unknown[]) => void>();
  worker.on("message", (message: unknown) => {
    if (!isAnswer(message)) return;
    pending.get(message.id)?.(message.metrics);
    pending.delete(message.id);
  });
  const ask = () =>
    new Promise<unknown[]>((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve([]);
      }, ANSWER_WAIT_MS);
      pending.set(id, (json) => {
        clearTimeout(timer);
        resolve(json);
      });
      worker.postMessage({ type: "metrics-scrape", id } satisfies ScrapeRequest);
    });
  m.probes.jobsThread = ask;
  worker.once("exit", () => {
    if (m.probes.jobsThread === ask) m.probes.jobsThread = undefined;
    for (const resolve of pending.values()) resolve([]);
    pending.clear();
  });
}

/** The jobs thread's half: answers the main thread's scrapes with `json()`, its families. */
export function answerScrapes(port: MessagePort, json: () => Promise<unknown[]>): void {
  port.on("message", (message: unknown) => {
    if ((message as ScrapeRequest | null)?.type !== "metrics-scrape") return;
    const { id } = message as ScrapeRequest;
    const answer = (metrics: unknown[]) =>
      port.postMessage({ type: "metrics-scraped", id, metrics } satisfies ScrapeAnswer);
    json().then(answer, () => answer([]));
  });
}
