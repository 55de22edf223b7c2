import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { grantCredits } from "@/lib/billing";
import { useGateway } from "../support/gateway";
import { upload, waitForDocument } from "../support/knowledge";

/**
 * Provider embeddings are billed (EMBEDDING_MODEL set, the fake's `/v1/embeddings` counting one
 * token per word): indexing, search and a run's retrieval query each pay for their embedding, and
 * a company that cannot pay is refused before the provider is called.
 */
const gw = useGateway({ env: { EMBEDDING_MODEL: "openai:text-embedding-3-small", EMBEDDING_PRICE_PER_M: "" } });

const MODEL = "openai:text-embedding-3-small";
/** text-embedding-3-small's list price: 20 O₮ per million tokens. */
const MICRO_PER_TOKEN = 20;
/** local-mini's prices, µO₮ per token (10 / 40 O₮ per million). */
const LOCAL_MINI = { input: 10, output: 40 };
const FACT = "The spare valve key for turbine nine hangs in locker forty-two behind the pump room.";

const embedCalls = () => gw.fake.requests.filter((r) => r.path.startsWith("/v1/embeddings"));
const toMicro = (ot: number) => Math.round(ot * 1_000_000);

async function ledger(key: string): Promise<{ balanceMicro: number; entries: any[] }> {
  const res = await gw.call(key, "GET", "/v1/usage");
  expect(res.status).toBe(200);
  return { balanceMicro: toMicro(res.json.balance_ot), entries: res.json.data };
}

async function collection(key: string): Promise<string> {
  const kc = await gw.call(key, "POST", "/v1/knowledge", { name: "Plant", description: "" });
  expect(kc.status).toBe(201);
  return kc.json.id as string;
}

describe("billed provider embeddings", () => {
  it("indexing, search and a run's retrieval query are billed with the model and tokens; the balance drops by exactly their cost", async () => {
    const { key } = await gw.tenant(100);
    const collectionId = await collection(key);
    const up = await upload(gw.server.url, key, collectionId, {
      name: "valves.txt",
      bytes: `Maintenance notes.\n\n${FACT}\n\nOther notes about belts.`,
    });
    expect(up.status).toBe(202);
    expect((await waitForDocument(gw.server.url, key, collectionId, up.json.id)).status).toBe("ready");
    const indexTokens = embedCalls().reduce((n, r) => n + r.usage!.prompt, 0);
    expect(indexTokens).toBeGreaterThan(0);
    const afterIndex = await ledger(key);
    expect(afterIndex.entries[0]).toMatchObject({
      kind: "usage",
      source: "embeddings",
      model: MODEL,
      prompt_tokens: indexTokens,
      reference_id: up.json.id,
    });
    expect(toMicro(afterIndex.entries[0].amount_ot)).toBe(-indexTokens * MICRO_PER_TOKEN);
    expect(afterIndex.balanceMicro).toBe(100_000_000 - indexTokens * MICRO_PER_TOKEN);

    const found = await gw.call(key, "POST", `/v1/knowledge/${collectionId}/search`, {
      query: "where is the valve key",
      top_k: 3,
    });
    expect(found.status, JSON.stringify(found.json)).toBe(200);
    expect(found.json.data[0].chunk).toContain("locker forty-two");
    const queryTokens = embedCalls().at(-1)!.usage!.prompt;
    const afterSearch = await ledger(key);
    expect(afterSearch.entries[0]).toMatchObject({
      kind: "usage",
      source: "embeddings",
      model: MODEL,
      prompt_tokens: queryTokens,
      reference_id: collectionId,
    });
    expect(afterSearch.balanceMicro).toBe(afterIndex.balanceMicro - queryTokens * MICRO_PER_TOKEN);

    const profile = (
      await gw.call(key, "POST", "/v1/profiles", { name: "plant", knowledge_base_ids: [collectionId], use_kb: true })
    ).json;
    const threadId = await gw.thread(key, [
      { role: "user", content: "Where is the spare valve key for turbine nine?" },
    ]);
    const run = await gw.call(key, "POST", `/v1/threads/${threadId}/runs`, {
      model: "local-mini",
      profile_ids: [profile.id],
    });
    expect(run.status, JSON.stringify(run.json)).toBe(200);
    expect(run.json.content).toContain("locker forty-two");
    const retrievalCall = embedCalls().at(-1)!;
    expect(retrievalCall.body.input).toEqual(["Where is the spare valve key for turbine nine?"]);
    const retrievalMicro = retrievalCall.usage!.prompt * MICRO_PER_TOKEN;
    const afterRun = await ledger(key);
    const entry = afterRun.entries[0];
    // One entry for the run: the model call and the retrieval query's embedding (a stage call).
    expect(afterRun.entries.length).toBe(afterSearch.entries.length + 1);
    expect(entry).toMatchObject({ kind: "run", model: "local-mini" });
    expect(entry.metadata.stage_calls).toEqual([
      {
        stage: "retrieval",
        model: MODEL,
        prompt_tokens: retrievalCall.usage!.prompt,
        completion_tokens: 0,
        cost_micro: retrievalMicro,
      },
    ]);
    const modelMicro = entry.prompt_tokens * LOCAL_MINI.input + entry.completion_tokens * LOCAL_MINI.output;
    expect(toMicro(entry.amount_ot)).toBe(-(modelMicro + retrievalMicro));
    expect(afterRun.balanceMicro).toBe(afterSearch.balanceMicro - modelMicro - retrievalMicro);
  });

  it("a company that cannot pay: its document fails with the reason before any provider call; after a grant, retry indexes and bills it", async () => {
    const { key, companyId } = await gw.tenant(0);
    const collectionId = await collection(key);
    const up = await upload(gw.server.url, key, collectionId, { name: "valves.txt", bytes: FACT });
    expect(up.status).toBe(202);
    const failed = await waitForDocument(gw.server.url, key, collectionId, up.json.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/^embed: insufficient balance for embeddings/);
    expect(embedCalls()).toEqual([]);

    await grantCredits(db, { companyId, amountMicro: 1_000_000, entry: { source: "test" } });
    const retried = await gw.call(key, "POST", `/v1/knowledge/${collectionId}/documents/${up.json.id}/retry`);
    expect(retried.status).toBe(200);
    expect((await waitForDocument(gw.server.url, key, collectionId, up.json.id)).status).toBe("ready");
    const tokens = embedCalls().reduce((n, r) => n + r.usage!.prompt, 0);
    const after = await ledger(key);
    expect(after.entries[0]).toMatchObject({
      kind: "usage",
      source: "embeddings",
      model: MODEL,
      prompt_tokens: tokens,
    });
    expect(after.balanceMicro).toBe(1_000_000 - tokens * MICRO_PER_TOKEN);
  });

  it("a company that cannot pay: search is 402 and a run whose retrieval query it cannot pay is 402, neither reaching the provider", async () => {
    const { key } = await gw.tenant(0);
    const collectionId = await collection(key);
    const search = await gw.call(key, "POST", `/v1/knowledge/${collectionId}/search`, { query: "valve key" });
    expect(search.status).toBe(402);
    expect(search.json.error.code).toBe("insufficient_balance");

    const profile = (
      await gw.call(key, "POST", "/v1/profiles", { name: "plant", knowledge_base_ids: [collectionId], use_kb: true })
    ).json;
    const threadId = await gw.thread(key, [{ role: "user", content: "Where is the valve key?" }]);
    const run = await gw.call(key, "POST", `/v1/threads/${threadId}/runs`, {
      model: "local-mini",
      profile_ids: [profile.id],
    });
    expect(run.status).toBe(402);
    expect(run.json.error.code).toBe("insufficient_balance");
    expect(embedCalls()).toEqual([]);
  });

  it("a call refused at the model's hold after its retrieval query was embedded still bills that embedding (completion and run)", async () => {
    // 0.01 O₮ pays a short query's embedding, not local-mini's worst case.
    const { key } = await gw.tenant(0.01);
    const collectionId = await collection(key);
    await gw.call(key, "POST", "/v1/profiles", {
      name: "plant",
      knowledge_base_ids: [collectionId],
      use_kb: true,
      is_default: true,
    });
    const completion = await gw.call(key, "POST", "/v1/chat/completions", {
      model: "local-mini",
      messages: [{ role: "user", content: "Where is the valve key?" }],
    });
    expect(completion.status).toBe(402);
    const threadId = await gw.thread(key, [{ role: "user", content: "Where is the valve key?" }]);
    const run = await gw.call(key, "POST", `/v1/threads/${threadId}/runs`, { model: "local-mini" });
    expect(run.status).toBe(402);
    const calls = embedCalls();
    expect(calls.map((c) => c.body.input)).toEqual([["Where is the valve key?"], ["Where is the valve key?"]]);
    const micro = calls[0]!.usage!.prompt * MICRO_PER_TOKEN;
    const after = await ledger(key);
    const billed = after.entries.filter((e) => e.kind !== "grant");
    expect(billed.map((e) => e.kind).sort()).toEqual(["completion", "run"]);
    for (const e of billed) {
      expect(e.metadata.stage_calls).toEqual([
        {
          stage: "retrieval",
          model: MODEL,
          prompt_tokens: calls[0]!.usage!.prompt,
          completion_tokens: 0,
          cost_micro: micro,
        },
      ]);
      expect(toMicro(e.amount_ot)).toBe(-micro);
    }
    expect(after.balanceMicro).toBe(10_000 - 2 * micro);
  });
});
