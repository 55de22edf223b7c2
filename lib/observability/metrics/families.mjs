// @ts-check
/**
 * The process's Prometheus metric families (prom-client), made once by whoever serves /metrics
 * (scripts/server/main.mjs, scripts/worker.ts) and kept on the `metrics` process channel. The app
 * records into them through ./record.ts and reports state through `probes`, read on each scrape.
 * Names and labels are listed in docs/observability.md. Every label value comes from a closed set
 * (route patterns, catalog models, fixed kinds): never a company, key, user or request id.
 */
import client from "prom-client";
import { metrics as metricsChannel } from "../../process-channels.mjs";

const PREFIX = "cockpit_";

/** Whole requests, streams included: a stream's request lasts until its last byte. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const UPSTREAM_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300];
const FIRST_TOKEN_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30];
const MAX_MODEL_LABELS = 500;
/** How long one read of the job tables answers scrapes (both queue families of one scrape share it). */
const QUEUE_READ_REUSE_MS = 1_000;
const SANDBOX_WAIT_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * @typedef {object} JobQueueDepth
 * @property {string} queue
 * @property {number} waiting jobs created or due for retry, not yet taken
 * @property {number} active jobs a worker holds
 * @property {number} oldestWaitingS age of the oldest waiting job, 0 when none waits
 */

/**
 * State the app reports on scrape (unset: the family shows nothing).
 * @typedef {object} MetricsProbes
 * @property {() => Promise<JobQueueDepth[]>} [jobQueues] read from pg-boss's tables by the process running the job workers
 * @property {() => "up" | "down"} [database] the database breaker's state
 * @property {() => "up" | "down" | "off" | undefined} [redis] the Redis circuit's state (undefined: not used yet)
 * @property {() => { processes: number, busy: number, booting: number, waiting: number } | undefined} [sandbox] the sandbox pool's counts, once it exists
 * @property {() => Promise<unknown[]>} [jobsThread] the jobs thread's families (`getMetricsAsJSON()`), while it runs
 */

/** The jobs thread's families, asked for on each scrape: they count what its jobs (webhook runs) do. */
class JobsThreadRegistry extends client.Registry {
  /** @param {MetricsProbes} probes */
  constructor(probes) {
    super();
    this.probes = probes;
  }

  /** @returns {Promise<any>} */
  async getMetricsAsJSON() {
    return (await this.probes.jobsThread?.()) ?? [];
  }
}

/**
 * Collect callbacks run on every scrape; a failing probe must not fail the scrape, so its family
 * keeps its last values.
 * @param {() => unknown} fn
 */
async function quietly(fn) {
  try {
    await fn();
  } catch {
    // The probe's source is away (a database outage shows in the breaker's family).
  }
}

/** @param {{ clusterWorker?: boolean, processWide?: boolean }} opts */
function createFamilies(opts) {
  const registry = new client.Registry();
  /** @type {MetricsProbes} */
  const probes = {};
  const jobsThread = new JobsThreadRegistry(probes);
  const registers = [registry];
  // One read of the queue tables serves both queue families of a scrape.
  /** @type {{ at: number, rows: Promise<JobQueueDepth[]> } | null} */
  let queueRead = null;
  const jobQueues = () => {
    const read = probes.jobQueues;
    if (!read) return null;
    const now = Date.now();
    if (!queueRead || now - queueRead.at > QUEUE_READ_REUSE_MS) queueRead = { at: now, rows: read() };
    return queueRead.rows;
  };

  const httpLabels = /** @type {const} */ (["route", "method", "status"]);
  const httpRequests = new client.Counter({
    name: `${PREFIX}http_requests_total`,
    help: "HTTP requests answered, by route pattern, method and status (499: the client left before an answer)",
    labelNames: httpLabels,
    registers,
  });
  const httpDuration = new client.Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: "Time from a request's arrival to its response's end (a stream's last byte)",
    labelNames: httpLabels,
    buckets: HTTP_BUCKETS,
    registers,
  });

  const upstreamLabels = /** @type {const} */ (["provider", "model", "outcome"]);
  const upstreamRequests = new client.Counter({
    name: `${PREFIX}upstream_requests_total`,
    help: "Calls to model providers, one per attempt (retries and fallbacks each count), by outcome",
    labelNames: upstreamLabels,
    registers,
  });
  const upstreamDuration = new client.Histogram({
    name: `${PREFIX}upstream_request_duration_seconds`,
    help: "Duration of one upstream attempt, to its last byte for streams",
    labelNames: upstreamLabels,
    buckets: UPSTREAM_BUCKETS,
    registers,
  });
  const upstreamFirstToken = new client.Histogram({
    name: `${PREFIX}upstream_time_to_first_token_seconds`,
    help: "Time from sending a streamed upstream attempt to its first chunk",
    labelNames: ["provider", "model"],
    buckets: FIRST_TOKEN_BUCKETS,
    registers,
  });

  const tokens = new client.Counter({
    name: `${PREFIX}tokens_total`,
    help: "Tokens billed, by catalog model and kind (input: uncached prompt tokens; cached_input; output)",
    labelNames: ["model", "kind"],
    registers,
  });
  const billed = new client.Counter({
    name: `${PREFIX}billed_ot_total`,
    help: "O₮ charged to companies' balances, by kind (model, usage_event, tool, embedding)",
    labelNames: ["kind"],
    registers,
  });

  new client.Gauge({
    name: `${PREFIX}job_queue_depth`,
    help: "Jobs in each pg-boss queue, by state (waiting: created or due for retry; active: held by a worker)",
    labelNames: ["queue", "state"],
    // Every process running job workers reads the same tables: the largest reading, not the sum.
    aggregator: "max",
    registers,
    async collect() {
      const read = jobQueues();
      if (!read) return;
      await quietly(async () => {
        const rows = await read;
        this.reset();
        for (const r of rows) {
          this.set({ queue: r.queue, state: "waiting" }, r.waiting);
          this.set({ queue: r.queue, state: "active" }, r.active);
        }
      });
    },
  });
  new client.Gauge({
    name: `${PREFIX}job_queue_oldest_age_seconds`,
    help: "Age of the oldest waiting job in each pg-boss queue (0: none waits)",
    labelNames: ["queue"],
    aggregator: "max",
    registers,
    async collect() {
      const read = jobQueues();
      if (!read) return;
      await quietly(async () => {
        const rows = await read;
        this.reset();
        for (const r of rows) this.set({ queue: r.queue }, r.oldestWaitingS);
      });
    },
  });

  new client.Gauge({
    name: `${PREFIX}sandbox_processes`,
    help: "Python sandbox processes, by state (booting, busy: running a call, idle)",
    labelNames: ["state"],
    registers,
    collect() {
      const s = probes.sandbox?.();
      const booting = s?.booting ?? 0;
      const busy = s?.busy ?? 0;
      this.set({ state: "booting" }, booting);
      this.set({ state: "busy" }, busy);
      this.set({ state: "idle" }, Math.max(0, (s?.processes ?? 0) - booting - busy));
    },
  });
  new client.Gauge({
    name: `${PREFIX}sandbox_waiting_calls`,
    help: "Tool calls waiting for a free sandbox process",
    registers,
    collect() {
      this.set(probes.sandbox?.()?.waiting ?? 0);
    },
  });
  const sandboxWait = new client.Histogram({
    name: `${PREFIX}sandbox_wait_seconds`,
    help: "Time a tool call waited for a sandbox process, by outcome (acquired, timeout, cancelled, unavailable)",
    labelNames: ["outcome"],
    buckets: SANDBOX_WAIT_BUCKETS,
    registers,
  });

  new client.Gauge({
    name: `${PREFIX}database_breaker_state`,
    help: "Processes whose database breaker is in this state (up: closed, queries pass; down: open, calls get 503)",
    labelNames: ["state"],
    registers,
    collect() {
      const state = probes.database?.();
      if (!state) return;
      this.set({ state: "up" }, state === "up" ? 1 : 0);
      this.set({ state: "down" }, state === "down" ? 1 : 0);
    },
  });
  new client.Gauge({
    name: `${PREFIX}redis_state`,
    help: "Processes whose Redis circuit is in this state (up; down: PostgreSQL stands in; off: no REDIS_URL)",
    labelNames: ["state"],
    registers,
    collect() {
      const state = probes.redis?.();
      if (!state) return;
      for (const s of ["up", "down", "off"]) this.set({ state: s }, state === s ? 1 : 0);
    },
  });

  // A model label is a catalog slug or a configured upstream id; past this many distinct values
  // (far above any catalog) a new one is `other`, so no input can grow the series without bound.
  /** @type {Set<string>} */
  const models = new Set();
  /** @param {string} model */
  const modelLabel = (model) => {
    if (models.has(model)) return model;
    if (models.size >= MAX_MODEL_LABELS) return "other";
    models.add(model);
    return model;
  };

  // Process-wide (CPU, memory, handles): once per process, not again in its jobs thread.
  if (opts.processWide !== false) client.collectDefaultMetrics({ register: registry, prefix: PREFIX });
  if (opts.clusterWorker) {
    // Answers the cluster primary's scrape requests (prom-client's cluster protocol) with these registries.
    client.AggregatorRegistry.setRegistries([registry, jobsThread]);
    new client.AggregatorRegistry();
  }

  /** The exposition of this process: its families plus its jobs thread's, summed. */
  const exposition = async () => {
    const thread = await jobsThread.getMetricsAsJSON();
    if (thread.length === 0) return registry.metrics();
    const own = await registry.getMetricsAsJSON();
    // Families the jobs thread lacks (the process-wide ones) pass through unchanged: summing a
    // single reading is right, but some of them declare the aggregator "omit".
    const shared = new Set(thread.map((/** @type {{ name: string }} */ m) => m.name));
    for (const m of own) if (!shared.has(m.name)) Object.assign(m, { aggregator: "first" });
    return client.AggregatorRegistry.aggregate([own, thread]).metrics();
  };

  return {
    registry,
    exposition,
    probes,
    httpRequests,
    httpDuration,
    upstreamRequests,
    upstreamDuration,
    upstreamFirstToken,
    tokens,
    billed,
    sandboxWait,
    modelLabel,
  };
}

/** @typedef {ReturnType<typeof createFamilies>} MetricFamilies */

/**
 * This thread's families, made on the first call (later calls return the same ones).
 * @param {{ clusterWorker?: boolean, processWide?: boolean }} [opts] clusterWorker: answer the
 *   cluster primary's scrapes; processWide false: no process metrics (a worker thread's families)
 * @returns {MetricFamilies}
 */
export function processMetrics(opts = {}) {
  return /** @type {MetricFamilies} */ (metricsChannel.getOrInit(() => createFamilies(opts)));
}

/**
 * A registry that scrapes the cluster's workers and sums what they report (each family's
 * aggregator otherwise): the cluster primary's.
 */
export function clusterRegistry() {
  return new client.AggregatorRegistry();
}
