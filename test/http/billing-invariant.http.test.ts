import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey } from "../support/factories";
import { costMicro, type Prices } from "@/lib/models/pricing";
import { countPromptTokens, countTextTokens, promptTokenBound } from "@/lib/providers/tokens";
import { modelMaxOutputTokens } from "@/lib/runs/output-cap";
import {
  randomUsage,
  seededRandom,
  startFakeUpstream,
  type Behaviour,
  type FakeUpstream,
  type RecordedRequest,
} from "../support/fake-upstream";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * The billing invariant under load: two servers on one database, one fake upstream reporting random
 * usage, and 500 calls mixing models, cap fields, JSON and streams (cancelled early or late, or
 * dropped before the usage chunk) on a balance covering about a quarter. Every call is matched with
 * what the upstream saw and with its ledger row:
 *
 * - the upstream always receives an output cap it honours: min(max_tokens, max_completion_tokens), else the default;
 * - a call that reached the upstream has exactly one `completion` ledger row; a refused call (402) has none;
 * - the row bills the reported usage when there is one, else the tokenizer's count; amount + `cost_micro_unbilled`
 *   = cost at the model's prices, with a shortfall only when the balance could not cover it;
 * - the `runs` row carries the same tokens and cost; a client shown usage is billed that usage;
 * - `balance_micro` never goes below zero; once idle nothing is held and the balance is the grant minus the debits.
 *
 * The random draws are seeded (SEED), so a failure reproduces with the same calls and usages.
 */
const SEED = 0x8b111;
const CALLS = 500;
const CONCURRENCY = 64;
/** The grant covers this share of the calls' expected cost at the fake's random usage. */
const GRANT_SHARE = 0.25;
const DEFAULT_OUTPUT_CAP = 16_384;
const PROMPT_MAX = 20_000;
const UNCAPPED_MAX = 200_000;
const UPSTREAM_KEY = "sk-upstream-billing-invariant";

/**
 * Slugs with non-zero prices, and the cap fields their upstream honours: OpenAI's reasoning models
 * take only `max_completion_tokens` (they refuse `max_tokens`), its older chat models both,
 * DeepSeek only `max_tokens`.
 */
const MODELS = {
  "gpt-5": { upstreamId: "gpt-5", honours: ["max_completion_tokens"] },
  "gpt-4.1-mini": { upstreamId: "gpt-4.1-mini", honours: ["max_completion_tokens", "max_tokens"] },
  "deepseek-chat": { upstreamId: "deepseek-chat", honours: ["max_tokens"] },
} as const;
type Slug = keyof typeof MODELS;
const SLUGS = Object.keys(MODELS) as Slug[];

/** What the client does, with its share of the calls. `stream` omits include_usage, `stream-usage` sets it. */
const KIND_WEIGHTS = {
  json: 0.22,
  stream: 0.13,
  "stream-usage": 0.17,
  "cancel-before-first": 0.15,
  "cancel-after-first": 0.15,
  "disconnect-after-finish": 0.18,
} as const;
type Kind = keyof typeof KIND_WEIGHTS;
/** Kinds whose upstream finishes its answer: the usage it reports is what must be billed. */
const MUST_BILL_REPORTED = new Set<Kind>(["json", "stream", "stream-usage", "disconnect-after-finish"]);

/** Which output caps the request sets, with their share of the calls. */
const CAP_WEIGHTS = { none: 0.35, max_tokens: 0.25, max_completion_tokens: 0.25, both: 0.15 } as const;
type CapMode = keyof typeof CAP_WEIGHTS;

interface PlannedCall {
  i: number;
  marker: string;
  server: number;
  slug: Slug;
  kind: Kind;
  capMode: CapMode;
  maxTokens?: number;
  maxCompletionTokens?: number;
  includeUsage: boolean;
  /** Client side: how long after its trigger the client aborts (cancel kinds). */
  cancelDelayMs: number;
  upstream: Behaviour | undefined;
}

function pick<T extends string>(rnd: () => number, weights: Record<T, number>): T {
  let x = rnd();
  const entries = Object.entries(weights) as [T, number][];
  for (const [k, w] of entries) {
    if ((x -= w) < 0) return k;
  }
  return entries.at(-1)![0];
}

function planCalls(): PlannedCall[] {
  const rnd = seededRandom(SEED);
  const cap = () => 16 + Math.floor(rnd() * 8000);
  return Array.from({ length: CALLS }, (_, i) => {
    const slug = SLUGS[Math.floor(rnd() * SLUGS.length)]!;
    const kind = pick(rnd, KIND_WEIGHTS);
    const capMode = pick(rnd, CAP_WEIGHTS);
    const usageDelayMs = 100 + Math.floor(rnd() * 200);
    const call: PlannedCall = {
      i,
      marker: `bill-${String(i).padStart(3, "0")}`,
      server: i % 2,
      slug,
      kind,
      capMode,
      includeUsage: kind === "stream-usage" || (kind !== "stream" && rnd() < 0.5),
      cancelDelayMs: Math.floor(rnd() * 150),
      upstream: undefined,
    };
    if (capMode === "max_tokens" || capMode === "both") call.maxTokens = cap();
    if (capMode === "max_completion_tokens" || capMode === "both") call.maxCompletionTokens = cap();
    if (kind === "cancel-before-first") call.upstream = { kind: "paced", firstTokenMs: 2_000, usageDelayMs };
    else if (kind === "cancel-after-first") call.upstream = { kind: "paced", intervalMs: 80, chunks: 12, usageDelayMs };
    else if (kind === "disconnect-after-finish")
      call.upstream = { kind: "paced", usageDelayMs: Math.max(150, usageDelayMs) };
    else if (kind !== "json") call.upstream = { kind: "paced", usageDelayMs };
    return call;
  });
}

/** The cap the gateway must send: the request's smaller cap, else the default (the prompts here are tiny). */
function expectedCap(call: PlannedCall): number {
  const caps = [call.maxTokens, call.maxCompletionTokens].filter((v): v is number => v !== undefined);
  // Without a cap, the default bounded by the model's documented maximum (deepseek-chat: 8,192).
  return caps.length
    ? Math.min(...caps)
    : Math.min(DEFAULT_OUTPUT_CAP, modelMaxOutputTokens(call.slug) ?? DEFAULT_OUTPUT_CAP);
}

const markerOf = (body: any): string | undefined => /\bbill-\d{3}\b/.exec(JSON.stringify(body?.messages ?? []))?.[0];

interface Outcome {
  status: number | null;
  ms: number;
  /** The `chatcmpl-…` id the client saw (JSON body or stream frames). */
  id?: string;
  /** Usage the client was shown (JSON body or the stream's usage frame). */
  usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens?: number } };
  done: boolean;
  sawContent: boolean;
  sawFinish: boolean;
  cancelled: boolean;
  errorFrame?: unknown;
  errorBody?: string;
}

let fake: FakeUpstream;
let servers: RunningServer[] = [];
const plan = planCalls();
const planByMarker = new Map(plan.map((c) => [c.marker, c]));
/** Client-side triggers fired when the upstream receives a call (cancel before the first token). */
const onUpstream = new Map<string, () => void>();

beforeAll(async () => {
  fake = await startFakeUpstream({
    usage: randomUsage({ seed: SEED, promptMax: PROMPT_MAX, uncappedMax: UNCAPPED_MAX }),
    capFields: (body) => Object.values(MODELS).find((m) => m.upstreamId === body.model)?.honours ?? [],
    behaviourFor: (body) => planByMarker.get(markerOf(body) ?? "")?.upstream,
    onRequest: (record) => onUpstream.get(markerOf(record.body) ?? "")?.(),
  });
  const env = {
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    REDIS_URL: "",
    OPENAI_BASE_URL: fake.openaiBase,
    OPENAI_API_KEY: UPSTREAM_KEY,
    DEEPSEEK_BASE_URL: fake.openaiBase,
    DEEPSEEK_API_KEY: UPSTREAM_KEY,
    LOG_LEVEL: "error",
  };
  servers = await Promise.all([startNextServer(env), startNextServer(env)]);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await fake?.close();
});

function requestBody(call: PlannedCall) {
  const stream = call.kind !== "json";
  return {
    model: call.slug,
    messages: [{ role: "user", content: `Billing check ${call.marker}: answer briefly.` }],
    ...(call.maxTokens !== undefined ? { max_tokens: call.maxTokens } : {}),
    ...(call.maxCompletionTokens !== undefined ? { max_completion_tokens: call.maxCompletionTokens } : {}),
    ...(stream ? { stream: true, ...(call.includeUsage ? { stream_options: { include_usage: true } } : {}) } : {}),
  };
}

/** One call as a client makes it, cancelling or hanging up where its kind says. Never throws. */
async function perform(call: PlannedCall, key: string): Promise<Outcome> {
  const out: Outcome = { status: null, ms: 0, done: false, sawContent: false, sawFinish: false, cancelled: false };
  const t0 = performance.now();
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const cancel = (delayMs: number) => {
    timer ??= setTimeout(() => {
      out.cancelled = true;
      abort.abort();
    }, delayMs);
  };
  if (call.kind === "cancel-before-first") onUpstream.set(call.marker, () => cancel(call.cancelDelayMs));
  try {
    const res = await fetch(`${servers[call.server]!.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(requestBody(call)),
      signal: abort.signal,
    });
    out.status = res.status;
    if (res.status !== 200) {
      out.errorBody = await res.text();
      return out;
    }
    if (call.kind === "json") {
      const body = await res.json();
      out.id = body.id;
      out.usage = body.usage;
      out.done = true;
      return out;
    }
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!frame.startsWith("data: ")) continue;
        const data = frame.slice("data: ".length);
        if (data === "[DONE]") {
          out.done = true;
          continue;
        }
        const chunk = JSON.parse(data);
        if (chunk.error) out.errorFrame = chunk.error;
        if (chunk.id) out.id = chunk.id;
        if (chunk.usage) out.usage = chunk.usage;
        const choice = chunk.choices?.[0];
        if (choice?.delta?.content && !out.sawContent) {
          out.sawContent = true;
          if (call.kind === "cancel-after-first") cancel(call.cancelDelayMs);
        }
        if (choice?.finish_reason) {
          out.sawFinish = true;
          if (call.kind === "disconnect-after-finish") {
            // Hang up at once: the upstream's usage chunk is still 150+ ms away.
            out.cancelled = true;
            abort.abort();
            return out;
          }
        }
      }
    }
  } catch (err) {
    if (!out.cancelled) out.errorBody = `client error: ${(err as Error).message}`;
  } finally {
    clearTimeout(timer);
    onUpstream.delete(call.marker);
    out.ms = Math.round(performance.now() - t0);
  }
  return out;
}

async function runPool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function companyState(companyId: string) {
  const [row] = (await db.execute(sql`
    SELECT balance_micro, reserved_micro,
           (SELECT count(*) FROM reservations WHERE company_id = ${companyId} AND status = 'held') AS held,
           (SELECT count(*) FROM ledger_entries WHERE company_id = ${companyId}) AS entries
    FROM companies WHERE id = ${companyId}`)) as unknown as {
    balance_micro: string;
    reserved_micro: string;
    held: string;
    entries: string;
  }[];
  return {
    balance: Number(row!.balance_micro),
    reserved: Number(row!.reserved_micro),
    held: Number(row!.held),
    entries: Number(row!.entries),
  };
}

async function pricesOf(): Promise<Map<string, Prices>> {
  const rows = (await db.execute(sql`
    SELECT slug, input_micro_per_m, cached_input_micro_per_m, output_micro_per_m FROM models
    WHERE slug IN (${sql.join(
      SLUGS.map((s) => sql`${s}`),
      sql`, `,
    )})`)) as unknown as Record<string, string>[];
  return new Map(
    rows.map((r) => [
      r.slug!,
      {
        inputMicroPerM: Number(r.input_micro_per_m),
        cachedInputMicroPerM: Number(r.cached_input_micro_per_m),
        outputMicroPerM: Number(r.output_micro_per_m),
      },
    ]),
  );
}

/** Mean cost of a call at the fake's random usage, when the gateway sends the cap it should. */
function expectedMeanCost(call: PlannedCall, prices: Prices): number {
  if (call.kind === "cancel-before-first" || call.kind === "cancel-after-first") return 0;
  const prompt = PROMPT_MAX / 2;
  return costMicro(
    { promptTokens: prompt, cachedTokens: prompt / 4, completionTokens: Math.round(expectedCap(call) / 2) },
    prices,
  );
}

interface LedgerRow {
  id: string;
  kind: string;
  amount: number;
  promptTokens: number | null;
  completionTokens: number | null;
  referenceId: string | null;
  metadata: Record<string, any>;
}
interface RunRow {
  id: string;
  status: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costMicro: number;
  marker?: string;
}

describe("billing invariant under load", () => {
  it(
    "500 mixed calls over two servers on a small balance: every upstream call billed once at its usage, never below zero, nothing held when idle",
    { timeout: 180_000 },
    async () => {
      const prices = await pricesOf();
      expect([...prices.keys()].sort()).toEqual([...SLUGS].sort());
      const expectedTotal = plan.reduce((s, c) => s + expectedMeanCost(c, prices.get(c.slug)!), 0);
      const grantMicro = Math.round((expectedTotal * GRANT_SHARE) / 1_000_000) * 1_000_000;
      const company = await makeCompany(db, { creditsOt: grantMicro / 1_000_000 });
      const { secret } = await makeKey(db, { companyId: company.id, rateLimitPerMinute: 100_000 });

      // Sample the balance while the calls run: it must never be seen below zero.
      const samples: { balance: number; reserved: number }[] = [];
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          samples.push(await companyState(company.id));
          await sleep(50);
        }
      })();

      const started = Date.now();
      const outcomes = new Map<string, Outcome>();
      await runPool(plan, CONCURRENCY, async (call) => {
        outcomes.set(call.marker, await perform(call, secret));
      });
      const callsMs = Date.now() - started;

      // Idle: every lease released (~2 s after its last call) and no bill still on its way.
      const deadline = Date.now() + 20_000;
      let state = await companyState(company.id);
      for (;;) {
        await sleep(500);
        const next = await companyState(company.id);
        const settled = next.reserved === 0 && next.held === 0 && next.entries === state.entries;
        state = next;
        if (settled || Date.now() > deadline) break;
      }
      sampling = false;
      await sampler;

      const ledger = (
        (await db.execute(sql`
      SELECT id, kind, amount_micro, prompt_tokens, completion_tokens, reference_id, metadata
      FROM ledger_entries WHERE company_id = ${company.id}`)) as unknown as Record<string, any>[]
      ).map((r): LedgerRow => ({
        id: r.id,
        kind: r.kind,
        amount: Number(r.amount_micro),
        promptTokens: r.prompt_tokens,
        completionTokens: r.completion_tokens,
        referenceId: r.reference_id,
        metadata: r.metadata ?? {},
      }));
      const runs = (
        (await db.execute(sql`
      SELECT r.id, r.status, r.model, r.prompt_tokens, r.completion_tokens, r.cached_tokens, r.cost_micro,
             (SELECT m.content::text FROM messages m WHERE m.thread_id = r.thread_id AND m.role = 'user' ORDER BY m.seq LIMIT 1) AS content
      FROM runs r WHERE r.company_id = ${company.id}`)) as unknown as Record<string, any>[]
      ).map((r): RunRow => ({
        id: r.id,
        status: r.status,
        model: r.model,
        promptTokens: r.prompt_tokens,
        completionTokens: r.completion_tokens,
        cachedTokens: r.cached_tokens,
        costMicro: Number(r.cost_micro),
        marker: /\bbill-\d{3}\b/.exec(r.content ?? "")?.[0],
      }));
      const runById = new Map(runs.map((r) => [r.id, r]));

      const upstreamByMarker = new Map<string, RecordedRequest[]>();
      for (const rec of fake.requests) {
        const m = markerOf(rec.body);
        if (m) upstreamByMarker.set(m, [...(upstreamByMarker.get(m) ?? []), rec]);
      }
      const rowsByMarker = new Map<string, LedgerRow[]>();
      const violations = new Map<string, string[]>();
      const violate = (category: string, detail: string) =>
        violations.set(category, [...(violations.get(category) ?? []), detail]);

      for (const row of ledger.filter((r) => r.kind !== "grant")) {
        const run = runById.get(row.metadata.run_id);
        if (row.kind !== "completion") violate("ledger row of an unexpected kind", `${row.id}: ${row.kind}`);
        if (!run?.marker) {
          violate("ledger row without its run", `${row.id} (run_id ${row.metadata.run_id})`);
          continue;
        }
        rowsByMarker.set(run.marker, [...(rowsByMarker.get(run.marker) ?? []), row]);
      }

      const summary = {
        byOutcome: {} as Record<string, number>,
        slowest: {} as Record<string, number>,
        billedMicro: 0,
        costMicro: 0,
        shortfalls: 0,
        unbilledMicro: 0,
        reportedBilled: 0,
        countedBilled: 0,
      };
      for (const call of plan) {
        const out = outcomes.get(call.marker)!;
        const ups = (upstreamByMarker.get(call.marker) ?? []).filter((r) => !r.incomplete);
        const rows = rowsByMarker.get(call.marker) ?? [];
        const label = `${call.marker} ${call.kind} ${call.slug} cap=${call.capMode}`;
        const outcome =
          out.status === 402
            ? "402"
            : out.status === 200
              ? out.cancelled
                ? `200 then ${call.kind}`
                : out.done
                  ? `200 ${call.kind}`
                  : "200 unfinished"
              : out.status === null
                ? out.cancelled
                  ? `${call.kind} before the answer`
                  : "no answer"
                : `status ${out.status}`;
        summary.byOutcome[outcome] = (summary.byOutcome[outcome] ?? 0) + 1;
        summary.slowest[outcome] = Math.max(summary.slowest[outcome] ?? 0, out.ms);

        if (out.status === 402) {
          if (ups.length) violate("a refused call reached the upstream", label);
          if (rows.length) violate("a refused call has a ledger row", label);
          if (!out.errorBody?.includes('"insufficient_balance"'))
            violate("a 402 without the OpenAI insufficient_balance body", `${label}: ${out.errorBody}`);
          continue;
        }
        if (out.status !== null && out.status !== 200) {
          violate("answered neither 200 nor 402", `${label}: ${out.status} ${out.errorBody?.slice(0, 200)}`);
          continue;
        }
        if (out.errorBody) violate("the client saw an error", `${label}: ${out.errorBody.slice(0, 200)}`);
        if (out.errorFrame)
          violate("a stream ended with an error frame", `${label}: ${JSON.stringify(out.errorFrame)}`);
        if (!out.cancelled && !out.done) violate("a stream ended without [DONE]", label);
        if (ups.length > 1) violate("the upstream was called more than once", `${label}: ${ups.length} requests`);
        if (ups.length === 0) {
          if (rows.length) violate("billed without an upstream call", label);
          if (out.status === 200) violate("answered 200 without an upstream call", label);
          continue;
        }
        const up = ups[0]!;

        const cap = expectedCap(call);
        if (up.cap === null) {
          violate(
            "the upstream received no output cap it honours",
            `${label}: sent max_tokens=${up.body.max_tokens ?? "-"} max_completion_tokens=${up.body.max_completion_tokens ?? "-"}; ${MODELS[call.slug].upstreamId} honours ${MODELS[call.slug].honours.join(", ")}; reported ${up.usage?.completion} completion tokens`,
          );
        } else if (up.cap !== cap)
          violate(
            "the upstream's output cap is not min(max_tokens, max_completion_tokens) or the default",
            `${label}: got ${up.cap}, expected ${cap}`,
          );
        if (MUST_BILL_REPORTED.has(call.kind) && up.usageSentAt === undefined) {
          violate(
            "the gateway hung up on the upstream before its usage chunk",
            `${label}: finish sent ${up.finishSentAt ? "yes" : "no"}, upstream aborted ${up.abortedAt ? `${up.abortedAt - (up.finishSentAt ?? up.receivedAt)} ms after finish` : "no"}`,
          );
        }

        if (rows.length !== 1) {
          violate(
            "a call that reached the upstream is not billed exactly once",
            `${label}: ${rows.length} ledger rows (status ${out.status}${out.cancelled ? ", cancelled" : ""})`,
          );
          continue;
        }
        const row = rows[0]!;
        const run = runById.get(row.metadata.run_id)!;
        if (!row.referenceId?.startsWith("chatcmpl-"))
          violate("reference_id is not the chatcmpl id", `${label}: ${row.referenceId}`);
        if (out.id && row.referenceId !== out.id)
          violate("reference_id is not the id the client saw", `${label}: ${row.referenceId} vs ${out.id}`);

        // Cached tokens live in the runs row (the ledger row has them in metadata, where present).
        const billed = {
          prompt: row.promptTokens ?? -1,
          completion: row.completionTokens ?? -1,
          cached: run.cachedTokens,
        };
        if (row.metadata.cached_tokens !== undefined && Number(row.metadata.cached_tokens) !== run.cachedTokens) {
          violate(
            "the ledger's cached tokens differ from the run's",
            `${label}: ${row.metadata.cached_tokens} vs ${run.cachedTokens}`,
          );
        }
        const reported = up.usage!;
        const isReported =
          up.usageSentAt !== undefined &&
          billed.prompt === reported.prompt &&
          billed.completion === reported.completion &&
          billed.cached === reported.cached;
        if (isReported) summary.reportedBilled++;
        else if (MUST_BILL_REPORTED.has(call.kind)) {
          violate(
            "billed other than the usage the upstream reported",
            `${label}: billed ${billed.prompt}+${billed.completion} (cached ${billed.cached}), upstream reported ${reported.prompt}+${reported.completion} (cached ${reported.cached})`,
          );
        } else {
          // Cancelled before the upstream finished: the tokenizer's count of the prompt and of what was generated.
          summary.countedBilled++;
          const low = countPromptTokens(up.body.messages, up.body.tools);
          const high = promptTokenBound(up.body.messages, up.body.tools);
          const generated = countTextTokens(up.sentText);
          if (billed.prompt < low || billed.prompt > high)
            violate(
              "a cancelled call's prompt is not billed at its count",
              `${label}: billed ${billed.prompt}, counted ${low}..${high}`,
            );
          if (billed.cached !== 0) violate("a counted usage has cached tokens", `${label}: ${billed.cached}`);
          const minCompletion = call.kind === "cancel-after-first" && out.sawContent ? 1 : 0;
          if (billed.completion < minCompletion || billed.completion > generated + 2) {
            violate(
              "a cancelled call's completion is not billed at what was generated",
              `${label}: billed ${billed.completion}, the upstream sent ${generated} tokens`,
            );
          }
        }

        const cost = costMicro(
          { promptTokens: billed.prompt, completionTokens: billed.completion, cachedTokens: billed.cached },
          prices.get(call.slug)!,
        );
        const unbilled = Number(row.metadata.cost_micro_unbilled ?? 0);
        if (-row.amount + unbilled !== cost)
          violate(
            "amount + shortfall is not the cost of the billed usage",
            `${label}: amount ${row.amount}, unbilled ${unbilled}, cost ${cost}`,
          );
        if (unbilled > 0) {
          summary.shortfalls++;
          summary.unbilledMicro += unbilled;
          if (Number(row.metadata.cost_micro_requested) !== cost)
            violate(
              "a shortfall without cost_micro_requested = cost",
              `${label}: ${row.metadata.cost_micro_requested} vs ${cost}`,
            );
        }
        if (row.amount > 0) violate("a completion credited the balance", `${label}: ${row.amount}`);
        summary.billedMicro += -row.amount;
        summary.costMicro += cost;
        if (out.status === 200 && cost > 0 && row.amount === 0)
          violate("answered 200 with nothing billed", `${label}: cost ${cost}, all of it unbilled`);
        if (run.promptTokens !== billed.prompt || run.completionTokens !== billed.completion) {
          violate(
            "the runs row's tokens differ from the ledger's",
            `${label}: run ${run.promptTokens}+${run.completionTokens}, ledger ${billed.prompt}+${billed.completion}`,
          );
        }
        if (run.costMicro !== cost && run.costMicro !== -row.amount)
          violate(
            "the runs row's cost_micro is neither the cost nor the amount billed",
            `${label}: ${run.costMicro} vs cost ${cost}, billed ${-row.amount}`,
          );
        if (out.usage && !out.cancelled) {
          const shown = {
            prompt: out.usage.prompt_tokens,
            completion: out.usage.completion_tokens,
            cached: out.usage.prompt_tokens_details?.cached_tokens ?? 0,
          };
          if (
            shown.prompt !== billed.prompt ||
            shown.completion !== billed.completion ||
            shown.cached !== billed.cached
          ) {
            violate(
              "the client was shown other usage than was billed",
              `${label}: shown ${JSON.stringify(shown)}, billed ${JSON.stringify(billed)}`,
            );
          }
        }
      }
      for (const marker of rowsByMarker.keys())
        if (!planByMarker.has(marker)) violate("ledger row of no planned call", marker);

      const negative = samples.filter((s) => s.balance < 0 || s.reserved < 0 || s.reserved > s.balance);
      if (negative.length)
        violate("balance below zero or reserved above it while running", JSON.stringify(negative.slice(0, 3)));
      if (state.reserved !== 0 || state.held !== 0)
        violate("credit still held once idle", `reserved_micro ${state.reserved}, ${state.held} held reservations`);
      const ledgerSum = ledger.reduce((s, r) => s + r.amount, 0);
      const debits = ledger.filter((r) => r.kind !== "grant").reduce((s, r) => s - r.amount, 0);
      if (state.balance !== ledgerSum || state.balance !== grantMicro - debits)
        violate(
          "the balance is not the grant minus the debits",
          `balance ${state.balance}, grant ${grantMicro}, debits ${debits}`,
        );

      const counts = [...violations].map(
        ([category, list]) => `${list.length} × ${category}\n      e.g. ${list.slice(0, 3).join("\n           ")}`,
      );
      const ot = (micro: number) => (micro / 1_000_000).toFixed(3);
      const report = [
        `billing invariant (seed ${SEED}): ${CALLS} calls, ${CONCURRENCY} in flight, over 2 servers, in ${callsMs} ms; grant ${ot(grantMicro)} O₮`,
        `  outcomes (count, slowest ms): ${Object.entries(summary.byOutcome)
          .map(([k, n]) => `${k} ${n} (${summary.slowest[k]} ms)`)
          .join(", ")}`,
        `  upstream requests ${fake.requests.length}; ledger rows ${ledger.length - 1}; usage cost ${ot(summary.costMicro)} O₮ = billed ${ot(summary.billedMicro)} O₮ (${summary.reportedBilled} rows at reported usage, ${summary.countedBilled} counted) + ${summary.shortfalls} shortfalls of ${ot(summary.unbilledMicro)} O₮`,
        `  balance: min sampled ${ot(Math.min(...samples.map((s) => s.balance)))} O₮ over ${samples.length} samples, final ${ot(state.balance)} O₮, reserved ${state.reserved}`,
        counts.length ? `  VIOLATIONS:\n    ${counts.join("\n    ")}` : "  no violations",
      ].join("\n");
      console.log(report);

      // The mix must exercise both sides of the balance.
      expect(summary.byOutcome["402"] ?? 0, report).toBeGreaterThan(0);
      expect(summary.billedMicro, report).toBeGreaterThan(0);
      expect(violations.size, report).toBe(0);
    },
  );
});
