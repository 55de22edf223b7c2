import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { knowledgeChunks } from "@/db/schema";
import type { Tx } from "@/db/types";
import type { ParsedDocument } from "@/lib/knowledge/contracts";
import { deleteDocumentChunks, indexDocument } from "@/lib/knowledge/index-chunks";
import { search } from "@/lib/knowledge/search";
import { searchCollection } from "@/lib/knowledge/search-collection";
import { randomBase62 } from "@/lib/ids";
import { makeCompany } from "../support/factories";
import { withRollback } from "../support/with-rollback";
import { ensureCollectionsTable, makeCollection } from "./collections";

beforeAll(ensureCollectionsTable);

const doc = (...paragraphs: string[]): ParsedDocument => ({
  kind: "txt",
  segments: paragraphs.map((text) => ({ kind: "paragraph" as const, text })),
});

const CORPUS: Record<string, string> = {
  wings: "The swept wing delays the onset of compressibility drag at high subsonic Mach numbers.",
  shocks: "A normal shock wave forms ahead of a blunt body in supersonic flow; the shock stands off the nose.",
  heat: "Heat transfer to the wall of a hypersonic vehicle rises steeply in the laminar boundary layer.",
  buckling: "Thin cylindrical shells under axial compression buckle at loads far below the classical value.",
  flutter:
    "Panel flutter of aircraft skins at supersonic speeds depends on the dynamic pressure and the panel stiffness.",
};

async function setup(tx: Tx) {
  const company = await makeCompany(tx);
  const collectionId = await makeCollection(tx, { companyId: company.id });
  const ids: Record<string, string> = {};
  for (const [name, text] of Object.entries(CORPUS)) {
    ids[name] = `doc_${randomBase62(12)}`;
    await indexDocument(tx, {
      companyId: company.id,
      collectionId,
      documentId: ids[name],
      filename: `${name}.txt`,
      folderPath: "aero",
      parsed: doc(text),
    });
  }
  return { companyId: company.id, collectionId, ids };
}

const docsOf = (rows: { documentId: string }[]) => rows.map((r) => r.documentId);

describe("indexing", () => {
  it("re-indexing never duplicates chunks and drops positions beyond the new count", () =>
    withRollback(async (tx) => {
      const company = await makeCompany(tx);
      const collectionId = await makeCollection(tx, { companyId: company.id });
      const documentId = `doc_${randomBase62(12)}`;
      const long = doc(
        ...Array.from(
          { length: 40 },
          (_, i) => `Paragraph ${i} describes the lift and drag of aerofoil ${i} in a wind tunnel test.`,
        ),
      );
      const args = { companyId: company.id, collectionId, documentId, filename: "long.txt", parsed: long };
      const first = await indexDocument(tx, args);
      expect(first.chunkCount).toBeGreaterThan(2);
      const again = await indexDocument(tx, args);
      expect(again.chunkCount).toBe(first.chunkCount);
      const rows = await tx
        .select({ position: knowledgeChunks.position })
        .from(knowledgeChunks)
        .where(eq(knowledgeChunks.documentId, documentId));
      expect(rows.map((r) => r.position).sort((a, b) => a - b)).toEqual(
        Array.from({ length: first.chunkCount }, (_, i) => i),
      );

      const shorter = await indexDocument(tx, { ...args, parsed: doc("Only one short paragraph now.") });
      expect(shorter.chunkCount).toBe(1);
      const after = await tx
        .select({ text: knowledgeChunks.text })
        .from(knowledgeChunks)
        .where(eq(knowledgeChunks.documentId, documentId));
      expect(after).toEqual([{ text: "Only one short paragraph now." }]);
    }));

  it("fills the tsvector with English stems and stores a normalised vector", () =>
    withRollback(async (tx) => {
      const { ids } = await setup(tx);
      const [row] = (await tx.execute(
        sql`SELECT tsv::text AS tsv, length(embedding) AS bytes, embedding_model FROM knowledge_chunks WHERE document_id = ${ids.shocks!}`,
      )) as unknown as {
        tsv: string;
        bytes: number;
        embedding_model: string;
      }[];
      expect(row!.tsv).toContain("'shock':");
      expect(row!.tsv).not.toContain("'the'");
      expect(row!.embedding_model).toBe("offline:hash-384");
      expect(row!.bytes).toBe(384 * 4);
    }));
});

describe("search", () => {
  it("ranks the chunk that answers first, best first, with lexical, dense and fused scores", () =>
    withRollback(async (tx) => {
      const { companyId, collectionId, ids } = await setup(tx);
      const rows = await search(tx, {
        companyId,
        collectionIds: [collectionId],
        query: "shock standoff distance ahead of blunt bodies",
        topK: 5,
      });
      expect(rows[0]!.documentId).toBe(ids.shocks);
      expect(rows[0]).toMatchObject({ filename: "shocks.txt", folderPath: "aero", collectionId, lexicalRank: 1 });
      expect(rows[0]!.lexicalScore).toBeGreaterThan(0);
      expect(rows[0]!.denseScore).toBeGreaterThan(0);
      for (let i = 1; i < rows.length; i++) expect(rows[i - 1]!.score).toBeGreaterThanOrEqual(rows[i]!.score);
      // Fusion: a chunk both rankers put first outscores any chunk only one ranker found.
      const top = rows[0]!;
      expect(top.score).toBeCloseTo(1 / (60 + top.lexicalRank!) + 1 / (60 + top.denseRank!), 10);
      // Relevance: the fused score over the best possible (first in both), in the ranking's order.
      expect(top.relevance).toBeCloseTo(top.score / (2 / 61), 3);
      expect(top.relevance).toBeLessThanOrEqual(1);
      for (let i = 1; i < rows.length; i++) expect(rows[i - 1]!.relevance).toBeGreaterThanOrEqual(rows[i]!.relevance);

      const flutter = await search(tx, { companyId, collectionIds: [collectionId], query: "panel flutter", topK: 3 });
      expect(flutter[0]!.documentId).toBe(ids.flutter);
    }));

  it("a query sharing nothing with the collection finds nothing (the score floor)", () =>
    withRollback(async (tx) => {
      const { companyId, collectionId } = await setup(tx);
      expect(
        await search(tx, { companyId, collectionIds: [collectionId], query: "zebra lasagne recipe", topK: 5 }),
      ).toEqual([]);
      expect(await search(tx, { companyId, collectionIds: [], query: "shock", topK: 5 })).toEqual([]);
    }));

  it("a deleted document is gone from search at once, though the cache held it", () =>
    withRollback(async (tx) => {
      const { companyId, collectionId, ids } = await setup(tx);
      const args = {
        companyId,
        collectionIds: [collectionId],
        query: "cylindrical shells buckle under axial compression",
        topK: 5,
      };
      expect(docsOf(await search(tx, args))[0]).toBe(ids.buckling);
      expect(await deleteDocumentChunks(tx, ids.buckling!)).toEqual({ deleted: 1 });
      expect(docsOf(await search(tx, args))).not.toContain(ids.buckling);
      // Re-indexed later, it comes back.
      await indexDocument(tx, {
        companyId,
        collectionId,
        documentId: ids.buckling!,
        filename: "buckling.txt",
        parsed: doc(CORPUS.buckling!),
      });
      expect(docsOf(await search(tx, args))[0]).toBe(ids.buckling);
    }));

  it("returns only the given collections of the given company", () =>
    withRollback(async (tx) => {
      const a = await setup(tx);
      const b = await setup(tx);
      const otherCollection = await makeCollection(tx, { companyId: a.companyId });
      const secret = `doc_${randomBase62(12)}`;
      await indexDocument(tx, {
        companyId: a.companyId,
        collectionId: otherCollection,
        documentId: secret,
        filename: "s.txt",
        parsed: doc(CORPUS.heat!),
      });

      const query = "heat transfer in the hypersonic boundary layer";
      const ofA = await search(tx, { companyId: a.companyId, collectionIds: [a.collectionId], query, topK: 50 });
      expect(ofA.length).toBeGreaterThan(0);
      expect(ofA.every((r) => r.collectionId === a.collectionId && Object.values(a.ids).includes(r.documentId))).toBe(
        true,
      );
      const both = await search(tx, {
        companyId: a.companyId,
        collectionIds: [a.collectionId, otherCollection],
        query,
        topK: 50,
      });
      expect(docsOf(both)).toContain(secret);
      // Company B's collection id passed with company A's id: nothing (isolation is by company too).
      expect(await search(tx, { companyId: a.companyId, collectionIds: [b.collectionId], query, topK: 50 })).toEqual(
        [],
      );
      const ofB = await search(tx, { companyId: b.companyId, collectionIds: [b.collectionId], query, topK: 50 });
      expect(ofB.every((r) => Object.values(b.ids).includes(r.documentId))).toBe(true);
    }));

  it("searchCollection: 404 for another company's or an inactive collection", () =>
    withRollback(async (tx) => {
      const a = await setup(tx);
      const b = await makeCompany(tx);
      const input = { query: "shock wave", top_k: 3 };
      expect(
        (await searchCollection(tx, { companyId: a.companyId, collectionId: a.collectionId, input })).length,
      ).toBeGreaterThan(0);
      await expect(
        searchCollection(tx, { companyId: b.id, collectionId: a.collectionId, input }),
      ).rejects.toMatchObject({ code: "not_found" });
      const inactive = await makeCollection(tx, { companyId: a.companyId, isActive: false });
      await expect(
        searchCollection(tx, { companyId: a.companyId, collectionId: inactive, input }),
      ).rejects.toMatchObject({ code: "not_found" });
    }));
});
