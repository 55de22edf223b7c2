import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "@/db/client";
import { ledgerEntries } from "@/db/schema";
import { getBalance } from "@/lib/billing";
import { AppError } from "@/lib/errors";
import { randomBase62 } from "@/lib/ids";
import type { ParsedDocument } from "@/lib/knowledge/contracts";
import { makeCompany } from "../support/factories";
import { ensureCollectionsTable, makeCollection } from "./collections";

/**
 * Provider embeddings are billed: EMBEDDING_MODEL points at a fake OpenAI `/v1/embeddings` on
 * loopback (one token per word), set before the gateway's modules read the environment.
 */
const fake = await vi.hoisted(async () => {
  const { startFakeUpstream } = await import("../support/fake-upstream");
  const f = await startFakeUpstream();
  process.env.EMBEDDING_MODEL = "openai:text-embedding-3-small";
  process.env.EMBEDDING_PRICE_PER_M = "";
  process.env.OPENAI_BASE_URL = f.openaiBase;
  process.env.OPENAI_API_KEY = "sk-test-embed";
  return f;
});

const { indexDocument } = await import("@/lib/knowledge/index-chunks");
const { searchCollection } = await import("@/lib/knowledge/search-collection");

/** text-embedding-3-small's list price: 20 O₮ per million tokens = 20 µO₮ per token. */
const MICRO_PER_TOKEN = 20;
const MODEL = "openai:text-embedding-3-small";

beforeAll(ensureCollectionsTable);
afterAll(() => fake.close());

const doc = (...paragraphs: string[]): ParsedDocument => ({
  kind: "txt",
  segments: paragraphs.map((text) => ({ kind: "paragraph" as const, text })),
});
const PARAGRAPHS = Array.from(
  { length: 30 },
  (_, i) => `Paragraph ${i} describes the lift and drag of aerofoil ${i} measured in a wind tunnel.`,
);

async function tenant(creditsOt: number) {
  const company = await makeCompany(db, { creditsOt });
  const collectionId = await makeCollection(db, { companyId: company.id });
  return { companyId: company.id, collectionId, documentId: `doc_${randomBase62(12)}` };
}

const embedCalls = () => fake.requests.filter((r) => r.path.startsWith("/v1/embeddings"));
const entries = (companyId: string) =>
  db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.companyId, companyId), eq(ledgerEntries.source, "embeddings")));

describe("billed indexing", () => {
  it("bills a document's embeddings as one usage entry with the model and the provider's tokens; the balance drops by exactly that", async () => {
    const t = await tenant(10);
    const before = embedCalls().length;
    const { chunkCount } = await indexDocument(db, { ...t, filename: "a.txt", parsed: doc(...PARAGRAPHS) });
    const calls = embedCalls().slice(before);
    expect(calls.length).toBe(1);
    const tokens = calls[0]!.usage!.prompt;
    expect(tokens).toBeGreaterThan(0);
    const [entry, ...more] = await entries(t.companyId);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      kind: "usage",
      source: "embeddings",
      model: MODEL,
      promptTokens: tokens,
      amountMicro: -tokens * MICRO_PER_TOKEN,
      referenceId: t.documentId,
    });
    expect(entry!.metadata).toMatchObject({ purpose: "indexing", document_id: t.documentId, chunks: chunkCount });
    expect(await getBalance(db, t)).toEqual({
      balanceMicro: 10_000_000 - tokens * MICRO_PER_TOKEN,
      reservedMicro: expect.any(Number),
    });
  });

  it("a job run again after its chunks were stored (a re-delivery) calls the provider and bills nothing more", async () => {
    const t = await tenant(10);
    const args = { ...t, filename: "a.txt", parsed: doc(...PARAGRAPHS) };
    const before = embedCalls().length;
    await indexDocument(db, args);
    await indexDocument(db, args);
    expect(embedCalls().length - before).toBe(1);
    expect(await entries(t.companyId)).toHaveLength(1);
  });

  it("two runs of the same job at once bill it once", async () => {
    const t = await tenant(10);
    const args = { ...t, filename: "a.txt", parsed: doc(...PARAGRAPHS) };
    const before = embedCalls().length;
    await Promise.all([indexDocument(db, args), indexDocument(db, args)]);
    const tokens = embedCalls().at(-1)!.usage!.prompt;
    // The second may already find the first's chunks stored and reuse them: one call or two, one bill.
    expect(embedCalls().length - before).toBeGreaterThanOrEqual(1);
    expect(embedCalls().length - before).toBeLessThanOrEqual(2);
    const billed = await entries(t.companyId);
    expect(billed).toHaveLength(1);
    expect((await getBalance(db, t)).balanceMicro).toBe(10_000_000 - tokens * MICRO_PER_TOKEN);
  });

  it("a company that cannot pay: the embed stage fails with the reason, before any provider call, nothing stored or billed", async () => {
    const t = await tenant(0);
    const before = embedCalls().length;
    const err = await indexDocument(db, { ...t, filename: "a.txt", parsed: doc(...PARAGRAPHS) }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ name: "IndexingError", stage: "embed" });
    expect((err as Error).message).toMatch(/^embed: insufficient balance for embeddings/);
    expect(embedCalls().length).toBe(before);
    expect(await entries(t.companyId)).toEqual([]);
  });
});

describe("billed search", () => {
  it("bills the query's embedding as a usage entry; the balance drops by exactly its cost", async () => {
    const t = await tenant(10);
    await indexDocument(db, { ...t, filename: "a.txt", parsed: doc(...PARAGRAPHS) });
    const balance = (await getBalance(db, t)).balanceMicro;
    const results = await searchCollection(db, {
      companyId: t.companyId,
      collectionId: t.collectionId,
      input: { query: "lift of aerofoil 7", top_k: 3 },
    });
    expect(results.length).toBeGreaterThan(0);
    const call = embedCalls().at(-1)!;
    expect(call.body.input).toEqual(["lift of aerofoil 7"]);
    const tokens = call.usage!.prompt;
    const search = (await entries(t.companyId)).filter((e) => e.metadata.purpose === "search");
    expect(search).toMatchObject([
      {
        kind: "usage",
        model: MODEL,
        promptTokens: tokens,
        amountMicro: -tokens * MICRO_PER_TOKEN,
        referenceId: t.collectionId,
      },
    ]);
    expect((await getBalance(db, t)).balanceMicro).toBe(balance - tokens * MICRO_PER_TOKEN);
  });

  it("a company that cannot pay gets insufficient_balance before the provider is called", async () => {
    const t = await tenant(0);
    const before = embedCalls().length;
    const err = await searchCollection(db, {
      companyId: t.companyId,
      collectionId: t.collectionId,
      input: { query: "lift", top_k: 3 },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: "insufficient_balance" });
    expect(embedCalls().length).toBe(before);
  });
});
