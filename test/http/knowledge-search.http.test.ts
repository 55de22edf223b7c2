import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { deleteDocumentChunks, indexDocument } from "@/lib/knowledge/index-chunks";
import { randomBase62 } from "@/lib/ids";
import { ensureCollectionsTable, makeCollection } from "../knowledge/collections";
import { makeCompany, makeKey } from "../support/factories";
import { startNextServer, type RunningServer } from "../support/next-server";

/** POST /v1/knowledge/{collection_id}/search over real HTTP against the production build (CONTRACT 5.10). */
let server: RunningServer;

beforeAll(async () => {
  await ensureCollectionsTable();
  server = await startNextServer({
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    LOG_LEVEL: "error",
  });
});

afterAll(async () => {
  await server?.stop();
});

async function tenant(scopes: ("chat" | "view" | "action" | "admin")[] = ["chat"]) {
  const company = await makeCompany(db);
  const { secret } = await makeKey(db, { companyId: company.id, scopes });
  const collectionId = await makeCollection(db, { companyId: company.id });
  return { companyId: company.id, key: secret, collectionId };
}

async function call(key: string, collectionId: string, body: unknown) {
  const res = await fetch(`${server.url}/v1/knowledge/${collectionId}/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

const paragraph = (text: string, page?: number) => ({
  kind: "pdf" as const,
  segments: [{ kind: "paragraph" as const, text, page }],
});

describe("POST /v1/knowledge/{collection_id}/search", () => {
  it("answers ranked chunks with their sources, best first; a deleted document drops out at once", async () => {
    const t = await tenant();
    const ids = { tides: `doc_${randomBase62(12)}`, volcano: `doc_${randomBase62(12)}` };
    await indexDocument(db, {
      companyId: t.companyId,
      collectionId: t.collectionId,
      documentId: ids.tides,
      filename: "tides.pdf",
      folderPath: "oceans/notes",
      parsed: paragraph("Spring tides occur when the sun and the moon align, raising the tidal range.", 3),
    });
    await indexDocument(db, {
      companyId: t.companyId,
      collectionId: t.collectionId,
      documentId: ids.volcano,
      filename: "volcano.pdf",
      parsed: paragraph("A shield volcano is built by fluid lava flows; the moon has no active volcano.", 1),
    });
    const res = await call(t.key, t.collectionId, { query: "why are spring tides larger", top_k: 5 });
    expect(res.status).toBe(200);
    expect(res.json.object).toBe("list");
    expect(res.json.data[0]).toEqual({
      document_id: ids.tides,
      collection_id: t.collectionId,
      filename: "tides.pdf",
      folder_path: "oceans/notes",
      chunk: "Spring tides occur when the sun and the moon align, raising the tidal range.",
      score: expect.any(Number),
      relevance: expect.any(Number),
      ranks: { bm25: 1, vector: expect.any(Number) },
      scores: { bm25: expect.any(Number), vector: expect.any(Number) },
      page: 3,
    });
    const scores = res.json.data.map((d: { score: number }) => d.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    // A readable relevance: 0..1, in the ranking's order, 1 only for a chunk first in both rankers.
    const relevances = res.json.data.map((d: { relevance: number }) => d.relevance);
    expect([...relevances].sort((a, b) => b - a)).toEqual(relevances);
    for (const r of relevances) {
      expect(r).toBeGreaterThan(0);
      expect(r).toBeLessThanOrEqual(1);
    }
    const top = res.json.data[0];
    expect(top.relevance).toBeCloseTo((1 / (60 + top.ranks.bm25) + 1 / (60 + top.ranks.vector)) / (2 / 61), 3);

    expect((await call(t.key, t.collectionId, { query: "moon" })).json.data).toHaveLength(2);
    await deleteDocumentChunks(db, ids.tides);
    const after = await call(t.key, t.collectionId, { query: "moon" });
    expect(after.json.data.map((d: { document_id: string }) => d.document_id)).toEqual([ids.volcano]);
  });

  it("404 for another company's collection, an unknown one and an inactive one", async () => {
    const a = await tenant();
    const b = await tenant();
    await indexDocument(db, {
      companyId: a.companyId,
      collectionId: a.collectionId,
      documentId: `doc_${randomBase62(12)}`,
      filename: "a.txt",
      parsed: paragraph("Secret formula of company A."),
    });
    for (const id of [
      a.collectionId,
      "kb_unknown",
      await makeCollection(db, { companyId: b.companyId, isActive: false }),
    ]) {
      const res = await call(b.key, id, { query: "secret formula" });
      expect(res.status).toBe(404);
      expect(res.json.error).toMatchObject({ code: "not_found" });
    }
  });

  it("400 for a bad top_k or a missing query; 403 for a key without the chat scope", async () => {
    const t = await tenant();
    for (const body of [
      { query: "x", top_k: 0 },
      { query: "x", top_k: 51 },
      { query: "x", top_k: 2.5 },
      { query: "x", top_k: "5" },
      {},
      { query: "  " },
    ]) {
      const res = await call(t.key, t.collectionId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.type).toBe("invalid_request_error");
    }
    expect((await call(t.key, t.collectionId, { query: "x", top_k: 50 })).status).toBe(200);
    const viewer = await makeKey(db, { companyId: t.companyId, scopes: ["view"] });
    expect((await call(viewer.secret, t.collectionId, { query: "x" })).status).toBe(403);
  });
});
