import type { MetricsProbes } from "@/lib/observability/metrics/families.mjs";
import { metrics } from "@/lib/process-channels.mjs";

/**
 * What the app records into the process's metric families (families.mjs). Each call is one
 * branch while metrics are off (METRICS_PORT=0: no families exist), else a counter or histogram
 * update. Models are labelled only by catalog slugs or configured upstream ids, passed through
 * the families' bounded label set.
 */

const MICRO_PER_OT = 1_000_000;

export type UpstreamOutcome = "ok" | "error" | "rate_limited" | "cancelled";
export type BilledKind = "model" | "usage_event" | "tool" | "embedding";
/** unavailable: no process could boot, or the pool is shut down. */
export type SandboxWaitOutcome = "acquired" | "timeout" | "cancelled" | "unavailable";

/** One upstream attempt ended (`startedMs`: performance.now() when it was sent). */
export function observeUpstream(provider: string, model: string, outcome: UpstreamOutcome, startedMs: number): void {
  const m = metrics.get();
  if (!m) return;
  const labels = { provider, model: m.modelLabel(model), outcome };
  m.upstreamRequests.inc(labels);
  m.upstreamDuration.observe(labels, (performance.now() - startedMs) / 1000);
}

/** A streamed upstream attempt's first chunk arrived. */
export function observeFirstToken(provider: string, model: string, startedMs: number): void {
  const m = metrics.get();
  if (!m) return;
  m.upstreamFirstToken.observe({ provider, model: m.modelLabel(model) }, (performance.now() - startedMs) / 1000);
}

/** A failed attempt's outcome: the caller gone, the provider's 429, or any other failure. */
export function failedOutcome(err: unknown, aborted: boolean): UpstreamOutcome {
  if (aborted) return "cancelled";
  return (err as { status?: unknown } | null)?.status === 429 ? "rate_limited" : "error";
}

interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

/** Tokens billed for `model` (cached tokens are counted inside promptTokens). */
function countTokens(model: string, usage: TokenUsage): void {
  const m = metrics.get();
  if (!m) return;
  const cached = Math.min(usage.cachedTokens, usage.promptTokens);
  if (usage.promptTokens === 0 && usage.completionTokens === 0) return;
  const label = m.modelLabel(model);
  if (usage.promptTokens > cached) m.tokens.inc({ model: label, kind: "input" }, usage.promptTokens - cached);
  if (cached > 0) m.tokens.inc({ model: label, kind: "cached_input" }, cached);
  if (usage.completionTokens > 0) m.tokens.inc({ model: label, kind: "output" }, usage.completionTokens);
}

/** O₮ charged (given in micro-O₮, the ledger's unit). */
export function countBilled(kind: BilledKind, micro: number): void {
  const m = metrics.get();
  if (!m || micro <= 0) return;
  m.billed.inc({ kind }, micro / MICRO_PER_OT);
}

/** What a run's or completion's bill holds, as persisted (lib/runs/persist-run.ts). */
interface RunBillFacts {
  requestedModel: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costMicro: number;
  billable: boolean;
  entry: { metadata?: Record<string, unknown> | null };
}

interface StageCallFacts {
  stage?: unknown;
  model?: unknown;
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  cost_micro?: unknown;
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/**
 * A run's or completion's bill was written now (not found written by an earlier attempt): its
 * tokens by model, and its O₮ split into tool CPU, query embeddings and the model calls (the rest).
 */
export function countRunBill(bill: RunBillFacts, outcome: { already: boolean; chargedMicro?: number }): void {
  if (!metrics.get() || outcome.already || !bill.billable) return;
  const meta = bill.entry.metadata ?? {};
  const stageCalls = Array.isArray(meta.stage_calls) ? (meta.stage_calls as StageCallFacts[]) : [];
  let embeddingMicro = 0;
  for (const c of stageCalls) {
    if (typeof c.model === "string")
      countTokens(c.model, {
        promptTokens: num(c.prompt_tokens),
        completionTokens: num(c.completion_tokens),
        cachedTokens: 0,
      });
    if (c.stage === "retrieval") embeddingMicro += num(c.cost_micro);
  }
  // The run's usage is its main model's (stage calls are billed beside it, not counted in it).
  countTokens(bill.requestedModel, {
    promptTokens: bill.promptTokens,
    completionTokens: bill.completionTokens,
    cachedTokens: bill.cachedTokens,
  });
  const charged = outcome.chargedMicro ?? bill.costMicro;
  const toolFull = Math.round((num(meta.tool_cpu_ms) / 1000) * num(meta.tool_cpu_ot_per_s) * MICRO_PER_OT);
  // A shortfall (the balance ran out) is taken from the model's share first.
  const tool = Math.min(toolFull, charged);
  const embedding = Math.min(embeddingMicro, charged - tool);
  countBilled("tool", tool);
  countBilled("embedding", embedding);
  countBilled("model", charged - tool - embedding);
}

/** An embedding call was billed now (POST /v1/embeddings, knowledge indexing and search). */
export function countEmbeddingBill(model: string, tokens: number, chargedMicro: number): void {
  if (!metrics.get()) return;
  countTokens(model, { promptTokens: tokens, completionTokens: 0, cachedTokens: 0 });
  countBilled("embedding", chargedMicro);
}

/** A tool call got a sandbox process, or gave up waiting for one. */
export function observeSandboxWait(startedMs: number, outcome: SandboxWaitOutcome): void {
  const m = metrics.get();
  if (!m) return;
  m.sandboxWait.observe({ outcome }, (performance.now() - startedMs) / 1000);
}

/** Sources of the state read on each scrape; a no-op while metrics are off. */
export function reportOnScrape(probes: MetricsProbes): void {
  const m = metrics.get();
  if (m) Object.assign(m.probes, probes);
}
