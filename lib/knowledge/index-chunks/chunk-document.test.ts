import { describe, expect, it } from "vitest";
import { countTextTokens } from "@/lib/providers/tokens";
import type { ParsedDocument } from "../contracts";
import { chunkDocument } from "./chunk-document";

const sentence = (i: number) => `Sentence number ${i} talks about the boundary layer of wing ${i}.`;
const paragraphs = (n: number, per: number, page?: number): ParsedDocument["segments"] =>
  Array.from({ length: n }, (_, p) => ({
    kind: "paragraph" as const,
    text: Array.from({ length: per }, (_, i) => sentence(p * per + i)).join(" "),
    page,
  }));

describe("chunkDocument", () => {
  it("packs sentences up to the size, with overlap from the previous chunk", () => {
    const chunks = chunkDocument({ kind: "txt", segments: paragraphs(4, 20) }, { maxTokens: 100, overlapTokens: 20 });
    expect(chunks.length).toBeGreaterThan(5);
    chunks.forEach((c, i) => {
      expect(c.position).toBe(i);
      expect(c.tokens).toBe(countTextTokens(c.text));
      expect(c.tokens).toBeLessThanOrEqual(100 + 2);
    });
    for (let i = 1; i < chunks.length; i++) {
      const lastOfPrevious = chunks[i - 1]!.text.split(/(?<=\.)\s+/).pop()!;
      expect(chunks[i]!.text.startsWith(lastOfPrevious)).toBe(true);
    }
    // Every sentence is somewhere.
    const all = chunks.map((c) => c.text).join(" ");
    for (let i = 0; i < 80; i++) expect(all).toContain(sentence(i));
  });

  it("without overlap, chunks do not repeat text", () => {
    const chunks = chunkDocument({ kind: "txt", segments: paragraphs(2, 20) }, { maxTokens: 100, overlapTokens: 0 });
    const all = chunks.map((c) => c.text).join(" ");
    expect(all.match(/Sentence number 3 /g)).toHaveLength(1);
  });

  it("records the nearest heading and the page, and a heading starts a new chunk", () => {
    const chunks = chunkDocument(
      {
        kind: "pdf",
        segments: [
          { kind: "heading", text: "Introduction", level: 1, page: 1 },
          { kind: "paragraph", text: "The introduction says hello. It is short.", page: 1 },
          { kind: "heading", text: "Methods", level: 1, page: 2 },
          { kind: "heading", text: "Apparatus", level: 2, page: 2 },
          ...paragraphs(1, 30, 2),
        ],
      },
      { maxTokens: 100, overlapTokens: 10 },
    );
    expect(chunks[0]).toMatchObject({ heading: "Introduction", page: 1 });
    expect(chunks[0]!.text.startsWith("Introduction ")).toBe(true);
    expect(chunks[1]).toMatchObject({ heading: "Apparatus", page: 2 });
    expect(chunks[1]!.text.startsWith("Methods Apparatus ")).toBe(true);
    expect(chunks.slice(2).every((c) => c.heading === "Apparatus")).toBe(true);
    // No overlap across a heading: the first chunk's sentences are not repeated after it.
    expect(chunks.slice(1).some((c) => c.text.includes("It is short."))).toBe(false);
  });

  it("row chunks stay within one sheet and each repeats the sheet name and header row", () => {
    const rows = (sheet: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        kind: "row" as const,
        sheet,
        header: "Name | Price | Stock",
        text: `Widget ${sheet}-${i} | ${i}.50 | ${i * 3}`,
      }));
    const chunks = chunkDocument(
      { kind: "xlsx", segments: [...rows("Q1", 40), ...rows("Q2", 5)] },
      { maxTokens: 80, overlapTokens: 20 },
    );
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.text.startsWith(`Sheet: ${c.sheet}\nName | Price | Stock\n`)).toBe(true);
      expect(c.tokens).toBeLessThanOrEqual(80 + 2);
      const rowsIn = c.text.split("\n").slice(2);
      expect(rowsIn.every((r) => r.startsWith(`Widget ${c.sheet}-`))).toBe(true);
    }
    expect(chunks.at(-1)!.sheet).toBe("Q2");
    // Rows are not repeated between chunks.
    const all = chunks.flatMap((c) => c.text.split("\n").slice(2));
    expect(new Set(all).size).toBe(45);
  });

  it("splits a sentence longer than a chunk, and gives nothing for an empty document", () => {
    const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
    const chunks = chunkDocument(
      { kind: "txt", segments: [{ kind: "paragraph", text: long }] },
      { maxTokens: 64, overlapTokens: 0 },
    );
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.every((c) => c.tokens <= 66)).toBe(true);
    expect(chunkDocument({ kind: "txt", segments: [{ kind: "paragraph", text: "  " }] })).toEqual([]);
  });

  it("cuts a word longer than a chunk (one unbroken run) into chunks of at most the size", () => {
    const run = "a".repeat(200_000);
    const chunks = chunkDocument(
      { kind: "txt", segments: [{ kind: "paragraph", text: `before ${run} after` }] },
      { maxTokens: 512, overlapTokens: 0 },
    );
    expect(chunks.length).toBeGreaterThan(40);
    expect(chunks.every((c) => c.tokens <= 514 && countTextTokens(c.text) <= 514)).toBe(true);
    expect(
      chunks
        .map((c) => c.text)
        .join("")
        .replace(/\s/g, ""),
    ).toBe(`before${run}after`);
  });
});
