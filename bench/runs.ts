/**
 * Runs rows of the chat-completions benchmark (bench/completions.ts calls this while its `ours`
 * server is up, on the same fake upstream): `POST /v1/threads/{id}/runs` on threads seeded through
 * the API, against the chat-completions rows of the same bench run.
 *
 *   run json @32c     req/s against ours' chat completions (same model), the two measured
 *                     alternately `repeat` times, the order swapped every repetition (completions
 *                     first in odd ones); each connection on threads of its own (one active run per thread:
 *                     a second concurrent run on a thread answers 409), rotating over
 *                     THREADS_PER_CONNECTION threads of 20 messages, a fresh set for the warm-up
 *                     and for each repetition, since every run appends its assistant message and
 *                     the goal is about threads of 20 messages (a thread gets ~6 runs)
 *   run json @1c      p50 over `latencyRequests` sequential runs (autocannon, as the completions
 *                     rows) on a pool of 20-message threads, each used a handful of times;
 *                     "added" = run p50 − p50 of the same upstream call sent straight to the fake
 *                     upstream (the body the gateway sent, taken from the fake's GET /last)
 *   run stream TTFB   request start → first body byte, sequential, keep-alive (as the completions
 *                     TTFB), minus the direct TTFB of the same upstream streaming call
 *   long thread       gpt-3.5-turbo (context 16,385 tokens): added p50 of runs on one
 *                     5,000-message thread minus added p50 of runs on 20-message threads; the long
 *                     thread's run sends only the newest messages that fit, and grows by one
 *                     message per run (5,000 → 5,000 + runs: the part sent stays the same size)
 *
 * Each latency pair (direct, then run) is measured `repeat` times back to back; a goal takes the
 * median of the per-repetition values. Goals: run req/s @32c >= 90 % of chat completions' (json,
 * same model); run added p50 @1c < 2.5 ms; added TTFB < 2 ms; long − short thread added p50 < 3 ms.
 */
import type { Mode, Row, Target, Ttfb, Upstream, Verdict } from "./lib/completions-shapes";
import postgres from "postgres";
import type { LoadOptions } from "./lib/load";
import { waitForQuiet } from "./lib/measure";
import { fmt, renderTable } from "./lib/table";
import { median } from "./lib/spread";

export const RUN_TARGETS = { throughputPct: 90, addedP50Ms: 2.5, addedTtfbMs: 2, longThreadExtraMs: 3 } as const;
/** The small-context model of the long-thread rows (catalog: context_window 16385, max_output_tokens 4096). */
export const LONG_MODEL = "gpt-3.5-turbo";
const THREAD_MESSAGES = 20;
const LONG_THREAD_MESSAGES = 5_000;
const THREADS_PER_CONNECTION = 40;
const LATENCY_POOL = 400;
const BULK = 100;
const SEED_PARALLEL = 8;
const LATENCY_WARMUP = 30;

export interface RunsRowsContext {
  ours: Target;
  /** Requests straight to the fake upstream (authorization of the fake). */
  direct: Target;
  up: Upstream;
  /** Header sets of the runs company's keys, rotated per request. */
  keys: Record<string, string>[];
  /** The model of the chat-completions rows. */
  model: string;
  /** The fake upstream's fixed answer, checked once per kind of run. */
  reply: string;
  usage: { prompt: number; completion: number };
  /** Path of the upstream call on the fake (the OpenAI chat-completions path). */
  upstreamPath: string;
  durationS: number;
  warmupS: number;
  highC: number;
  lowC: number;
  latencyRequests: number;
  repeat: number;
  ttfbRequests: number;
  /** The bench database: vacuumed and checkpointed after the seed, so that work does not land in a measured row. */
  databaseUrl: string;
  /** Before each measured pair, wait up to this long for unrelated load to drop below 0.3 cores. */
  quietWaitS: number;
  /** Chat-completions json request of ours (the throughput baseline, measured alternately with the runs row). */
  completionsSpec(connections: number, durationS: number): LoadOptions;
  measure(t: Target, mode: Mode, connections: number, durationS: number, spec: LoadOptions): Promise<Row>;
  ttfb(t: Target, n: number, warmup: number, req: { path: (i: number) => string; body: string }): Promise<Ttfb>;
  log(message: string): void;
}

export type RunCase = "json" | "json-long-model" | "json-long-thread";

export interface RunRow extends Row {
  kind: "run" | "direct" | "completions";
  /** json-throughput-same: chat completions carrying a 20-message thread's messages, at the throughput row's load. */
  case: RunCase | "json-throughput" | "json-throughput-same";
  model: string;
  repetition: number;
}

export interface RunTtfb extends Ttfb {
  kind: "run" | "direct";
  repetition: number;
}

export interface RunsResult {
  /** Why the rows are missing (the endpoint is not in this build), else null. */
  skipped: string | null;
  rows: RunRow[];
  ttfb: RunTtfb[];
  invalid: string[];
  threads: {
    throughputPool: number;
    latencyPool: number;
    messagesPerThread: number;
    longThreadMessages: number;
    /** Messages of the long thread's upstream call (what fit gpt-3.5-turbo's window) and its size. */
    longCallMessages: number | null;
    longCallBytes: number | null;
    /** Highest number of runs any thread of each pool took (each run appends one message). */
    maxRunsPerThroughputThread: number;
    maxRunsPerLatencyThread: number;
    seedMs: number;
  };
  upstreamBodies: Record<string, { messages: number; bytes: number }>;
  /** Where a run's time goes, from its own steps (GET …/runs/{id}/steps), per case. */
  steps: StepsBreakdown[];
}

export interface StepsBreakdown {
  case: RunCase;
  label: string;
  runs: number;
  /** Client: request start → whole response, median ms. */
  wallP50: number;
  /** The run's own `latency_ms`, median. */
  latencyP50: number;
  /** Median duration_ms per step type (and the median offset into the run it starts at). */
  byType: { type: string; durationP50: number; offsetP50: number; count: number }[];
}

const sentences = [
  "The quarterly report is due on Friday, and the numbers still need a second look.",
  "Could you summarise what we agreed about the rollout plan yesterday?",
  "We moved the staging database to the new cluster; latency dropped by a third.",
  "Please draft a short note to the team about the holiday schedule.",
  "The customer asked whether invoices can be exported as CSV as well as PDF.",
  "I think the second option is cheaper, but it takes two more weeks to ship.",
  "Remind me which regions the new pricing applies to, and from which date.",
  "The design review found three accessibility issues in the checkout form.",
];

/** `n` chat messages of a sentence or two each, alternating roles, the last one from the user. */
export function threadMessages(n: number, offset = 0): { role: string; content: string }[] {
  return Array.from({ length: n }, (_, i) => {
    const k = i + offset;
    const text =
      `${sentences[k % sentences.length]} ${k % 3 === 0 ? sentences[(k * 5 + 3) % sentences.length] : ""}`.trim();
    return { role: (n - 1 - i) % 2 === 0 ? "user" : "assistant", content: `(${k + 1}) ${text}` };
  });
}

class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function api(
  ctx: RunsRowsContext,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string; json: () => Record<string, unknown> }> {
  const res = await fetch(`${ctx.ours.baseUrl}${path}`, {
    method,
    headers: { "content-type": "application/json", ...ctx.keys[0] },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

async function createThread(ctx: RunsRowsContext, messages: { role: string; content: string }[]): Promise<string> {
  const r = await api(ctx, "POST", "/v1/threads", { metadata: { bench: "runs" }, messages });
  if (r.status !== 201) throw new ApiError(`POST /v1/threads: HTTP ${r.status} ${r.text.slice(0, 300)}`, r.status);
  return String(r.json().id);
}

async function createThreads(ctx: RunsRowsContext, count: number, messages: number): Promise<string[]> {
  const ids: string[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_PARALLEL }, async () => {
      for (let i = next++; i < count; i = next++) ids[i] = await createThread(ctx, threadMessages(messages, i));
    }),
  );
  return ids;
}

/** One thread of `n` messages: created with the first 100, the rest through the bulk endpoint in order. */
async function createLongThread(ctx: RunsRowsContext, n: number): Promise<string> {
  const all = threadMessages(n);
  const id = await createThread(ctx, all.slice(0, BULK));
  for (let i = BULK; i < n; i += BULK) {
    const r = await api(ctx, "POST", `/v1/threads/${id}/messages/bulk`, { messages: all.slice(i, i + BULK) });
    if (r.status !== 201) throw new Error(`bulk messages: HTTP ${r.status} ${r.text.slice(0, 300)}`);
  }
  return id;
}

const runPath = (threadId: string) => `/v1/threads/${threadId}/runs`;

/** One run, checked in full (status, reply, usage, SSE framing); returns the upstream body it caused. */
async function checkRun(
  ctx: RunsRowsContext,
  threadId: string,
  model: string,
  stream: boolean,
): Promise<Record<string, unknown>> {
  const r = await api(ctx, "POST", runPath(threadId), { model, stream });
  const fail = (why: string) =>
    new ApiError(`run ${model}${stream ? " stream" : ""}: ${why}: HTTP ${r.status} ${r.text.slice(0, 600)}`, r.status);
  if (r.status !== 200) throw fail("not 200");
  let content = "";
  let usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;
  if (!stream) {
    const body = r.json() as unknown as { status?: string; content?: string; usage?: typeof usage; model?: string };
    if (body.status !== "completed") throw fail(`status ${body.status}`);
    if (body.model !== model) throw fail(`model ${body.model}`);
    content = body.content ?? "";
    usage = body.usage;
  } else {
    const frames = r.text
      .split("\n\n")
      .map((f) => f.trim())
      .filter(Boolean);
    if (frames.at(-1) !== "data: [DONE]") throw fail("stream does not end with [DONE]");
    for (const f of frames.slice(0, -1)) {
      const frame = JSON.parse(f.replace(/^data: /, "")) as {
        delta?: string;
        done?: boolean;
        usage?: typeof usage;
        error?: unknown;
      };
      if (frame.error) throw fail("error frame");
      content += frame.delta ?? "";
      if (frame.done) usage = frame.usage;
    }
  }
  if (content !== ctx.reply) throw fail(`content ${JSON.stringify(content)} is not the fake upstream's reply`);
  if (usage?.prompt_tokens !== ctx.usage.prompt || usage?.completion_tokens !== ctx.usage.completion)
    throw fail(`usage ${JSON.stringify(usage)}`);
  const last = (await (await fetch(`${ctx.up.control}/last`)).json()) as Record<string, unknown> | null;
  if (!last || last.model === undefined) throw new Error(`run ${model}: the fake upstream recorded no call`);
  return last;
}

export async function runRunsRows(ctx: RunsRowsContext): Promise<RunsResult> {
  const out: RunsResult = {
    skipped: null,
    rows: [],
    ttfb: [],
    invalid: [],
    threads: {
      // One set of threads for the warm-up, one per repetition.
      throughputPool: (ctx.repeat + 1) * ctx.highC * THREADS_PER_CONNECTION,
      latencyPool: LATENCY_POOL,
      messagesPerThread: THREAD_MESSAGES,
      longThreadMessages: LONG_THREAD_MESSAGES,
      longCallMessages: null,
      longCallBytes: null,
      maxRunsPerThroughputThread: 0,
      maxRunsPerLatencyThread: 0,
      seedMs: 0,
    },
    upstreamBodies: {},
    steps: [],
  };

  // --- the endpoint, checked once per kind of run; the upstream calls to replay directly ---------
  const probe = await createThread(ctx, threadMessages(THREAD_MESSAGES));
  let json: Record<string, unknown>;
  try {
    json = await checkRun(ctx, probe, ctx.model, false);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 405)) {
      out.skipped = `POST /v1/threads/{id}/runs answers ${err.status}: not in this build`;
      ctx.log(`runs: ${out.skipped}; no runs rows`);
      return out;
    }
    throw err;
  }
  const stream = await checkRun(ctx, await createThread(ctx, threadMessages(THREAD_MESSAGES)), ctx.model, true);
  const longModel = await checkRun(ctx, await createThread(ctx, threadMessages(THREAD_MESSAGES)), LONG_MODEL, false);

  const t0 = Date.now();
  ctx.log(
    `runs: seeding ${out.threads.throughputPool + LATENCY_POOL} threads of ${THREAD_MESSAGES} messages and one of ${LONG_THREAD_MESSAGES}`,
  );
  const [throughputPool, latencyPool, longThread] = await Promise.all([
    createThreads(ctx, out.threads.throughputPool, THREAD_MESSAGES),
    createThreads(ctx, LATENCY_POOL, THREAD_MESSAGES),
    createLongThread(ctx, LONG_THREAD_MESSAGES),
  ]);
  out.threads.seedMs = Date.now() - t0;
  ctx.log(`runs: seeded in ${out.threads.seedMs} ms; VACUUM ANALYZE + CHECKPOINT`);
  // Otherwise autovacuum's analyze of ~25,000 new messages and the checkpoint run during the first rows.
  const sql = postgres(ctx.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`VACUUM ANALYZE messages, threads, runs`;
    await sql`CHECKPOINT`;
  } finally {
    await sql.end({ timeout: 5 });
  }
  const quiet = async () => {
    if (ctx.quietWaitS <= 0) return;
    const q = await waitForQuiet(0.3, ctx.quietWaitS * 1000);
    if (q.waitedMs > 1_500)
      ctx.log(
        `runs: waited ${Math.round(q.waitedMs / 1000)} s for unrelated load to drop (busy ${fmt(q.busy, 2)} cores)`,
      );
  };
  const longCall = await checkRun(ctx, longThread, LONG_MODEL, false);
  const bodies = { json, stream, longModel, longCall };
  for (const [k, b] of Object.entries(bodies)) {
    out.upstreamBodies[k] = {
      messages: Array.isArray(b.messages) ? b.messages.length : 0,
      bytes: Buffer.byteLength(JSON.stringify(b)),
    };
  }
  out.threads.longCallMessages = out.upstreamBodies.longCall!.messages;
  out.threads.longCallBytes = out.upstreamBodies.longCall!.bytes;
  ctx.log(
    `runs: the ${LONG_THREAD_MESSAGES}-message thread's upstream call carries ${out.threads.longCallMessages} messages (${out.threads.longCallBytes} bytes)`,
  );

  const runsOn = new Map<string, number>();
  const use = (id: string) => {
    runsOn.set(id, (runsOn.get(id) ?? 0) + 1);
    return runPath(id);
  };
  const headers = { "content-type": "application/json" };
  const check = (
    label: string,
    r: { non2xx: number; errors: number; statusCodes: Record<string, number>; timeouts?: number },
  ) => {
    if (r.non2xx || r.errors)
      out.invalid.push(`${label}: ${r.non2xx} non-2xx ${JSON.stringify(r.statusCodes)}, ${r.errors} errors`);
  };

  // --- throughput: connection i rotates over threads i*K .. i*K+K-1 ---------------------------
  const cursors = new Array<number>(ctx.highC).fill(0);
  // The set in use: 0 for the warm-up, `rep` for repetition `rep`.
  let set = 0;
  const perSet = ctx.highC * THREADS_PER_CONNECTION;
  const perConnection = (c: number) =>
    use(
      throughputPool[
        set * perSet + (c % ctx.highC) * THREADS_PER_CONNECTION + (cursors[c % ctx.highC]!++ % THREADS_PER_CONNECTION)
      ]!,
    );
  const runBody = (model: string, stream: boolean) => JSON.stringify({ model, stream });
  const runSpec = (
    connections: number,
    durationS: number,
    body: string,
    pathFor: (c: number) => string,
    amount?: number,
  ): LoadOptions => ({
    url: `${ctx.ours.baseUrl}/v1/threads`,
    method: "POST",
    headers,
    body,
    rotateHeaders: ctx.keys,
    pathFor,
    connections,
    durationS,
    pipelining: 1,
    amount,
  });
  const ours = (label: string): Target => ({ ...ctx.ours, label });
  if (ctx.warmupS > 0) {
    ctx.log(`runs json: warm-up ${ctx.warmupS} s @${ctx.highC}c`);
    const w = await ctx.measure(
      ours("run (warm-up)"),
      "json",
      ctx.highC,
      ctx.warmupS,
      runSpec(ctx.highC, ctx.warmupS, runBody(ctx.model, false), perConnection),
    );
    check("runs json warm-up", w);
  }
  // Runs cut off when the warm-up stopped may still be finishing on their threads.
  await new Promise((r) => setTimeout(r, 500));
  // A chat completion carrying the same messages as a 20-message thread's run: the same upstream
  // call, so run vs completion is what being a run costs (the claim, the history), whatever the
  // host's phase does to both. Measured at both loads beside the goals' rows, not one of them.
  const sameMessagesSpec: LoadOptions = {
    url: `${ctx.ours.baseUrl}/v1/chat/completions`,
    method: "POST",
    headers,
    body: JSON.stringify({ model: ctx.model, messages: json.messages }),
    rotateHeaders: ctx.keys,
    connections: ctx.highC,
    durationS: ctx.durationS,
    pipelining: 1,
  };
  const measureSameMessages = async (
    rep: number,
    rowCase: RunRow["case"],
    connections: number,
    durationS: number,
    amount?: number,
  ) => {
    const label = `chat completions ${ctx.model}, the same ${THREAD_MESSAGES} messages`;
    const cp = await ctx.measure(ours(label), "json", connections, durationS, {
      ...sameMessagesSpec,
      connections,
      durationS,
      amount,
    });
    check(`${label} @${connections}c rep ${rep}`, cp);
    out.rows.push({ ...cp, kind: "completions", case: rowCase, model: ctx.model, repetition: rep });
  };
  // Completions and runs alternately, `repeat` times: unrelated load on this shared machine comes and
  // goes within a minute, so the ratio is taken per pair and the goal uses the median pair. The
  // order swaps every repetition (completions first in odd ones, runs first in even ones): the
  // database work a row leaves behind (autovacuum, the WAL writer, hint bits on the rows it wrote)
  // lands in whichever row comes next, and with a fixed order always in the same one.
  const completionsRow = {
    name: "chat completions",
    async measure(rep: number) {
      const cp = await ctx.measure(
        ours(`chat completions ${ctx.model} (baseline)`),
        "json",
        ctx.highC,
        ctx.durationS,
        ctx.completionsSpec(ctx.highC, ctx.durationS),
      );
      check(`runs baseline completions @${ctx.highC}c rep ${rep}`, cp);
      out.rows.push({ ...cp, kind: "completions", case: "json-throughput", model: ctx.model, repetition: rep });
    },
  };
  const runsRow = {
    name: "runs",
    async measure(rep: number) {
      set = rep;
      const tp = await ctx.measure(
        ours(`run ${ctx.model}, ${THREAD_MESSAGES}-msg threads`),
        "json",
        ctx.highC,
        ctx.durationS,
        runSpec(ctx.highC, ctx.durationS, runBody(ctx.model, false), perConnection),
      );
      check(`runs json @${ctx.highC}c rep ${rep}`, tp);
      out.rows.push({ ...tp, kind: "run", case: "json-throughput", model: ctx.model, repetition: rep });
    },
  };
  const settle = async () => {
    await new Promise((r) => setTimeout(r, 500));
    await quiet();
  };
  for (let rep = 1; rep <= ctx.repeat; rep++) {
    await quiet();
    // The goal's pair, in turns; the same-message completions (information only) apart from it,
    // next to the runs row: after the pair in odd repetitions (runs second), before it in even ones
    // (runs first).
    const pair = rep % 2 === 1 ? [completionsRow, runsRow] : [runsRow, completionsRow];
    const apart = async () => {
      ctx.log(
        `runs: chat completions with the same ${THREAD_MESSAGES} messages json @${ctx.highC}c, ${ctx.durationS} s, repetition ${rep}/${ctx.repeat}`,
      );
      await measureSameMessages(rep, "json-throughput-same", ctx.highC, ctx.durationS);
    };
    if (rep % 2 === 0) {
      await apart();
      await settle();
    }
    ctx.log(
      `runs: ${pair[0]!.name} json @${ctx.highC}c then ${pair[1]!.name} json @${ctx.highC}c, ${ctx.durationS} s each, repetition ${rep}/${ctx.repeat}`,
    );
    for (const row of pair) await row.measure(rep);
    if (rep % 2 === 1) {
      await settle();
      await apart();
    }
    await new Promise((r) => setTimeout(r, 500));
  }

  // --- latency @1c: direct and run back to back, `repeat` times -------------------------------
  let latencyNext = 0;
  const nextLatency = () => use(latencyPool[latencyNext++ % LATENCY_POOL]!);
  const n = ctx.latencyRequests;
  const c = ctx.lowC;
  const cases: {
    case: RunCase;
    model: string;
    upstream: Record<string, unknown>;
    path: () => string;
    label: string;
  }[] = [
    {
      case: "json",
      model: ctx.model,
      upstream: json,
      path: nextLatency,
      label: `run ${ctx.model}, ${THREAD_MESSAGES}-msg threads`,
    },
    {
      case: "json-long-model",
      model: LONG_MODEL,
      upstream: longModel,
      path: nextLatency,
      label: `run ${LONG_MODEL}, ${THREAD_MESSAGES}-msg threads`,
    },
    {
      case: "json-long-thread",
      model: LONG_MODEL,
      upstream: longCall,
      path: () => use(longThread),
      label: `run ${LONG_MODEL}, ${LONG_THREAD_MESSAGES}-msg thread`,
    },
  ];
  const directSpec = (body: Record<string, unknown>, amount: number): LoadOptions => ({
    url: `${ctx.direct.baseUrl}${ctx.upstreamPath}`,
    method: "POST",
    headers: { ...headers, ...ctx.direct.headers },
    body: JSON.stringify(body),
    connections: c,
    durationS: 60,
    pipelining: 1,
    amount,
  });
  for (const k of cases) {
    // Warm-up: this model's and this thread's paths (the 32c warm-up ran gpt-4.1-mini on 20 messages only).
    const w = await ctx.measure(
      ours("run (warm-up)"),
      "json",
      c,
      60,
      runSpec(c, 60, runBody(k.model, false), k.path, LATENCY_WARMUP),
    );
    check(`runs ${k.case} warm-up`, w);
  }
  for (let rep = 1; rep <= ctx.repeat; rep++) {
    await quiet();
    for (const k of cases) {
      ctx.log(
        `runs ${k.case} @${c}c, repetition ${rep}/${ctx.repeat}: ${n} direct, ${n} runs${k.case === "json" ? `, ${n} completions` : ""}`,
      );
      const d = await ctx.measure(
        { ...ctx.direct, label: `direct (${k.label.replace(/^run /, "the upstream call of a run ")})` },
        "json",
        c,
        60,
        directSpec(k.upstream, n),
      );
      check(`direct ${k.case} rep ${rep}`, d);
      out.rows.push({ ...d, kind: "direct", case: k.case, model: k.model, repetition: rep });
      const runRow = async () => {
        const r = await ctx.measure(ours(k.label), "json", c, 60, runSpec(c, 60, runBody(k.model, false), k.path, n));
        check(`runs ${k.case} @${c}c rep ${rep}`, r);
        out.rows.push({ ...r, kind: "run", case: k.case, model: k.model, repetition: rep });
      };
      const completionRow = () => measureSameMessages(rep, k.case, c, 60, n);
      // The order swaps each repetition, as the throughput pairs do.
      if (k.case !== "json") await runRow();
      else for (const row of rep % 2 === 1 ? [runRow, completionRow] : [completionRow, runRow]) await row();
    }
    ctx.log(`runs stream TTFB, repetition ${rep}/${ctx.repeat}: ${ctx.ttfbRequests} direct, ${ctx.ttfbRequests} runs`);
    const warm = rep === 1 ? 20 : 0;
    const d = await ctx.ttfb(
      { ...ctx.direct, label: "direct (the upstream call of a streaming run)" },
      ctx.ttfbRequests,
      warm,
      { path: () => ctx.upstreamPath, body: JSON.stringify(stream) },
    );
    out.ttfb.push({ ...d, kind: "direct", repetition: rep });
    const r = await ctx.ttfb(ours(`run ${ctx.model} stream, ${THREAD_MESSAGES}-msg threads`), ctx.ttfbRequests, warm, {
      path: nextLatency,
      body: runBody(ctx.model, true),
    });
    out.ttfb.push({ ...r, kind: "run", repetition: rep });
    for (const x of [d, r])
      if (x.failures) out.invalid.push(`${x.label} TTFB rep ${rep}: ${x.failures} failed requests (${x.firstFailure})`);
  }

  for (const k of cases) {
    ctx.log(`runs ${k.case}: steps of ${STEPS_RUNS} sequential runs`);
    out.steps.push(await stepsOf(ctx, k.case, k.label, k.model, k.path));
  }

  const inPool = (pool: string[]) => Math.max(0, ...pool.map((id) => runsOn.get(id) ?? 0));
  out.threads.maxRunsPerThroughputThread = inPool(throughputPool);
  out.threads.maxRunsPerLatencyThread = inPool(latencyPool);
  return out;
}

const STEPS_RUNS = 40;

/** `STEPS_RUNS` sequential runs, each followed by a read of its steps: the medians per step type. */
async function stepsOf(
  ctx: RunsRowsContext,
  k: RunCase,
  label: string,
  model: string,
  path: () => string,
): Promise<StepsBreakdown> {
  const walls: number[] = [];
  const latencies: number[] = [];
  const byType = new Map<string, { d: number[]; o: number[] }>();
  for (let i = 0; i < STEPS_RUNS; i++) {
    const p = path();
    const t0 = performance.now();
    const r = await api(ctx, "POST", p, { model, stream: false });
    walls.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`steps run ${label}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
    const run = r.json() as { id: string; thread_id: string; latency_ms: number };
    latencies.push(run.latency_ms);
    const s = await api(ctx, "GET", `/v1/threads/${run.thread_id}/runs/${run.id}/steps`);
    if (s.status !== 200) throw new Error(`steps of ${run.id}: HTTP ${s.status} ${s.text.slice(0, 300)}`);
    for (const step of (s.json().data ?? []) as { type: string; duration_ms: number; offset_ms?: number }[]) {
      const e = byType.get(step.type) ?? { d: [], o: [] };
      e.d.push(step.duration_ms);
      e.o.push(step.offset_ms ?? Number.NaN);
      byType.set(step.type, e);
    }
  }
  return {
    case: k,
    label,
    runs: STEPS_RUNS,
    wallP50: median(walls),
    latencyP50: median(latencies),
    byType: [...byType.entries()].map(([type, e]) => ({
      type,
      durationP50: median(e.d),
      offsetP50: median(e.o),
      count: e.d.length,
    })),
  };
}

// --- goals and report ----------------------------------------------------------------------------

/** Above this many cores of unrelated load during a row, its repetition is disturbed (as bench/run.ts). */
const NOISY_OTHER_CORES = 0.25;
const disturbedRow = (r: Row | undefined) => r?.otherCores != null && r.otherCores > NOISY_OTHER_CORES;

/**
 * Median of per-repetition values over the undisturbed repetitions (every row of the pair ran with
 * < NOISY_OTHER_CORES of unrelated load); over all of them when none was (then `disturbed`).
 */
function pick(per: { value: number; disturbed: boolean }[]): {
  median: number | null;
  perRepetition: number[];
  clean: number;
  disturbed: boolean;
} {
  const clean = per.filter((p) => !p.disturbed);
  const use = clean.length ? clean : per;
  return {
    median: use.length ? median(use.map((p) => p.value)) : null,
    perRepetition: per.map((p) => p.value),
    clean: clean.length,
    disturbed: clean.length === 0,
  };
}

/** "(repetitions: a, b, …; median of N undisturbed)" for a pick. */
function repetitionsText(p: ReturnType<typeof pick>, digits: number): string {
  return `(repetitions: ${p.perRepetition.map((x) => fmt(x, digits)).join(", ")}; median of ${p.clean ? `${p.clean} undisturbed` : "all, every one disturbed"})`;
}

/** Run p50 − direct p50 for one case, per repetition; the median of the undisturbed ones. */
export function addedP50(res: RunsResult, k: RunCase) {
  return againstBaseline(res, k, { kind: "direct", case: k }, (r, d) => r.p50 - d.p50);
}

/**
 * Each repetition's run row of `runCase` set against the baseline row of the same repetition: one
 * value per repetition (disturbed when either row was), then pick's median.
 */
function againstBaseline(
  res: RunsResult,
  runCase: RunRow["case"],
  base: Pick<RunRow, "kind" | "case">,
  value: (run: RunRow, base: RunRow) => number,
) {
  const per: { value: number; disturbed: boolean }[] = [];
  for (const r of res.rows.filter((x) => x.kind === "run" && x.case === runCase)) {
    const b = res.rows.find((x) => x.kind === base.kind && x.case === base.case && x.repetition === r.repetition);
    if (b) per.push({ value: value(r, b), disturbed: disturbedRow(r) || disturbedRow(b) });
  }
  return pick(per);
}

/** Run p50 − chat completion p50 at one connection, the same upstream call (the 20-message case), per repetition. */
export function runOverCompletion(res: RunsResult) {
  return againstBaseline(res, "json", { kind: "completions", case: "json" }, (r, c) => r.p50 - c.p50);
}

/** Run req/s ÷ req/s of chat completions carrying the same messages, at the throughput rows' load, per repetition (%). */
export function runVsSameMessages(res: RunsResult) {
  return againstBaseline(
    res,
    "json-throughput",
    { kind: "completions", case: "json-throughput-same" },
    (r, c) => (r.rps / c.rps) * 100,
  );
}

/** TTFB has no CPU accounting of its own: a repetition counts as disturbed when that repetition's json rows were. */
export function addedTtfb(res: RunsResult) {
  const per: { value: number; disturbed: boolean }[] = [];
  for (const r of res.ttfb.filter((x) => x.kind === "run")) {
    const d = res.ttfb.find((x) => x.kind === "direct" && x.repetition === r.repetition);
    const near = res.rows.filter((x) => x.case !== "json-throughput" && x.repetition === r.repetition);
    if (d) per.push({ value: r.p50 - d.p50, disturbed: near.some(disturbedRow) });
  }
  return pick(per);
}

/** The runs goals; `completions` (ours' json row of the table at the same connection count) is only quoted beside the paired ratio. */
export function runsVerdicts(res: RunsResult, completions: Row | undefined): Verdict[] {
  const tpRuns = res.rows.filter((r) => r.case === "json-throughput" && r.kind === "run");
  const tp = againstBaseline(
    res,
    "json-throughput",
    { kind: "completions", case: "json-throughput" },
    (r, c) => (r.rps / c.rps) * 100,
  );
  const reps = (p: ReturnType<typeof pick>, digits = 3) =>
    p.perRepetition.length > 1 ? ` ${repetitionsText(p, digits)}` : "";
  const short = addedP50(res, "json");
  const shortLong = addedP50(res, "json-long-model");
  const long = addedP50(res, "json-long-thread");
  const ttfb = addedTtfb(res);
  const extra = long.median !== null && shortLong.median !== null ? long.median - shortLong.median : null;
  const pct = tp.median;
  const tpConns = tpRuns[0]?.connections ?? "-";
  const vsTable =
    tpRuns.length && completions
      ? ` (vs the table's completions row: ${fmt((median(tpRuns.map((r) => r.rps)) / completions.rps) * 100, 1)} %)`
      : "";
  return [
    {
      name: `runs: run json req/s vs chat completions @${tpConns}c, pairs measured alternately, order swapped each repetition${reps(tp, 1)}${vsTable}`,
      value: pct,
      unit: "% of completions",
      target: `>= ${RUN_TARGETS.throughputPct} %`,
      result: pct === null ? "n/a" : pct >= RUN_TARGETS.throughputPct ? "PASS" : "MISS",
      disturbed: tp.disturbed,
    },
    {
      name: `runs: json added p50 @1c (run − direct)${reps(short)}`,
      value: short.median,
      unit: "ms",
      target: `< ${RUN_TARGETS.addedP50Ms} ms`,
      result: short.median === null ? "n/a" : short.median < RUN_TARGETS.addedP50Ms ? "PASS" : "MISS",
      disturbed: short.disturbed,
    },
    {
      name: `runs: stream added time to first byte p50 @1c${reps(ttfb)}`,
      value: ttfb.median,
      unit: "ms",
      target: `< ${RUN_TARGETS.addedTtfbMs} ms`,
      result: ttfb.median === null ? "n/a" : ttfb.median < RUN_TARGETS.addedTtfbMs ? "PASS" : "MISS",
      disturbed: ttfb.disturbed,
    },
    {
      name: `runs: ${LONG_MODEL} added p50, ${LONG_THREAD_MESSAGES}-msg − ${THREAD_MESSAGES}-msg thread @1c (${fmt(long.median, 3)} − ${fmt(shortLong.median, 3)} ms; ${long.clean}/${long.perRepetition.length} and ${shortLong.clean}/${shortLong.perRepetition.length} undisturbed)`,
      value: extra,
      unit: "ms",
      target: `< ${RUN_TARGETS.longThreadExtraMs} ms`,
      result: extra === null ? "n/a" : extra < RUN_TARGETS.longThreadExtraMs ? "PASS" : "MISS",
      disturbed: long.disturbed || shortLong.disturbed,
    },
  ];
}

export function runsTables(res: RunsResult): string {
  if (res.skipped) return `Runs rows: skipped (${res.skipped})`;
  const t = res.threads;
  const rows = renderTable(
    [
      "runs (POST /v1/threads/{id}/runs)",
      "rep",
      "conns",
      "n",
      "req/s",
      "p50 ms",
      "p99 ms",
      "gw CPU ms/req",
      "gw writes/req",
      "db ms/req",
      "upstream ms/req",
      "non-2xx",
      "other cores",
    ],
    res.rows.map((r) => [
      r.label,
      r.repetition ? String(r.repetition) : "-",
      String(r.connections),
      String(r.total),
      fmt(r.rps, 0),
      fmt(r.p50, 3),
      fmt(r.p99, 3),
      r.gatewayCpuMsPerReq === null ? "-" : fmt(r.gatewayCpuMsPerReq, 3),
      r.gatewayWritesPerReq === null ? "-" : fmt(r.gatewayWritesPerReq, 2),
      r.dbCpuMsPerReq === null ? "-" : fmt(r.dbCpuMsPerReq, 3),
      fmt(r.upstreamCpuMsPerReq, 3),
      String(r.non2xx + r.errors),
      r.otherCores === null ? "-" : fmt(r.otherCores, 2),
    ]),
  );
  const ttfb = renderTable(
    ["runs stream, 1 connection, sequential", "rep", "n", "TTFB p50 ms", "TTFB p99 ms", "headers p50", "whole p50"],
    res.ttfb.map((x) => [
      x.label,
      String(x.repetition),
      String(x.n),
      fmt(x.p50, 3),
      fmt(x.p99, 3),
      fmt(x.headersP50, 3),
      fmt(x.totalP50, 3),
    ]),
  );
  const notes =
    `Runs threads: ${t.throughputPool} threads of ${t.messagesPerThread} messages for @32c (${THREADS_PER_CONNECTION} per connection in a fresh set for the warm-up and each repetition, at most ${t.maxRunsPerThroughputThread} runs each: they grew to ≤ ${t.messagesPerThread + t.maxRunsPerThroughputThread} messages), ` +
    `${t.latencyPool} for the @1c rows (≤ ${t.maxRunsPerLatencyThread} runs each, ≤ ${t.messagesPerThread + t.maxRunsPerLatencyThread} messages), one of ${t.longThreadMessages} messages ` +
    `(its ${LONG_MODEL} call carries the newest ${t.longCallMessages} messages, ${t.longCallBytes} bytes); seeded through the API in ${fmt(t.seedMs / 1000, 1)} s. ` +
    `Upstream calls replayed as the direct baseline: ${Object.entries(res.upstreamBodies)
      .map(([k, v]) => `${k} ${v.messages} messages / ${v.bytes} B`)
      .join(", ")}`;
  const steps = res.steps.length
    ? renderTable(
        [
          "run steps (medians of sequential runs)",
          "runs",
          "client wall ms",
          "latency_ms",
          "steps: type duration ms @offset ms",
        ],
        res.steps.map((x) => [
          x.label,
          String(x.runs),
          fmt(x.wallP50, 3),
          fmt(x.latencyP50, 3),
          x.byType.map((t) => `${t.type} ${fmt(t.durationP50, 2)} @${fmt(t.offsetP50, 2)}`).join(", "),
        ]),
      )
    : "";
  const own = runOverCompletion(res);
  const ownTp = runVsSameMessages(res);
  const overCompletion = [
    own.median === null
      ? ""
      : `What being a run costs at 1 connection (not a goal): run p50 − chat completion p50, the same ${t.messagesPerThread} messages upstream, ${fmt(own.median, 3)} ms ${repetitionsText(own, 3)}.`,
    ownTp.median === null
      ? ""
      : `Runs' req/s against chat completions carrying the same ${t.messagesPerThread} messages, at the throughput rows' load (not a goal): ${fmt(ownTp.median, 1)} % ${repetitionsText(ownTp, 1)}.`,
  ]
    .filter(Boolean)
    .join("\n");
  return [rows, ttfb, steps, notes, overCompletion].filter(Boolean).join("\n\n");
}
