import { beforeEach, describe, expect, it } from "vitest";
import { metrics } from "@/lib/process-channels.mjs";
import { processMetrics } from "./families.mjs";
import { countBilled, countRunBill, failedOutcome, observeUpstream } from "./record";

const families = () => processMetrics({ processWide: false });

async function values(name: "billed" | "tokens" | "upstreamRequests") {
  const got = await families()[name].get();
  return Object.fromEntries(got.values.map((v) => [Object.values(v.labels).join("/"), v.value]));
}

const bill = (over: Partial<Parameters<typeof countRunBill>[0]> = {}) => ({
  requestedModel: "gpt-4o-mini",
  promptTokens: 100,
  completionTokens: 20,
  cachedTokens: 40,
  costMicro: 5_000_000,
  billable: true,
  entry: {
    metadata: {
      tool_cpu_ms: 500,
      tool_cpu_ot_per_s: 2,
      stage_calls: [
        {
          stage: "retrieval",
          model: "text-embedding-3-small",
          prompt_tokens: 7,
          completion_tokens: 0,
          cost_micro: 1_000,
        },
        { stage: "multimodal", model: "gpt-4o", prompt_tokens: 30, completion_tokens: 5, cost_micro: 2_000 },
      ],
    },
  },
  ...over,
});

describe("recording", () => {
  beforeEach(() => {
    metrics.clear();
  });

  it("does nothing while metrics are off", () => {
    countBilled("usage_event", 1_000_000);
    observeUpstream("openai", "gpt-4o-mini", "ok", performance.now());
    expect(metrics.get()).toBeUndefined();
  });

  it("splits a run's bill into tool CPU, query embeddings and the model's share, and counts its tokens", async () => {
    families();
    countRunBill(bill(), { already: false });
    expect(await values("billed")).toEqual({ tool: 1, embedding: 0.001, model: 3.999 });
    expect(await values("tokens")).toEqual({
      "gpt-4o-mini/input": 60,
      "gpt-4o-mini/cached_input": 40,
      "gpt-4o-mini/output": 20,
      "text-embedding-3-small/input": 7,
      "gpt-4o/input": 30,
      "gpt-4o/output": 5,
    });
  });

  it("takes a shortfall from the model's share first; a bill written before, or none, counts nothing", async () => {
    families();
    countRunBill(bill(), { already: false, chargedMicro: 1_000_500 });
    expect(await values("billed")).toEqual({ tool: 1, embedding: 0.0005 });
    countRunBill(bill(), { already: true });
    countRunBill(bill({ billable: false }), { already: false });
    expect(await values("billed")).toEqual({ tool: 1, embedding: 0.0005 });
  });

  it("labels at most 500 models; past that a new one is `other`", async () => {
    families();
    for (let i = 0; i < 600; i++) observeUpstream("openai", `model-${i}`, "ok", performance.now());
    const labels = Object.keys(await values("upstreamRequests"));
    expect(labels).toHaveLength(501);
    expect(labels).toContain("openai/other/ok");
  });

  it("names a failed attempt's outcome", () => {
    expect(failedOutcome({ status: 429 }, false)).toBe("rate_limited");
    expect(failedOutcome({ status: 500 }, false)).toBe("error");
    expect(failedOutcome(new Error("reset"), false)).toBe("error");
    expect(failedOutcome({ status: 429 }, true)).toBe("cancelled");
  });
});
