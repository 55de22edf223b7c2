import fs from "node:fs";
import path from "node:path";
import * as XLSX from "@e965/xlsx";
import { describe, expect, it } from "vitest";
import { IndexingError } from "@/lib/knowledge/contracts";
import { makeDocx, makePdf, makeXlsx } from "@/test/support/knowledge-files";
import { parseDocument } from "./index";

const FIXTURES = path.join(process.cwd(), "test/fixtures/knowledge");

async function parseError(promise: Promise<unknown>): Promise<IndexingError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IndexingError);
  expect((err as IndexingError).stage).toBe("parse");
  return err as IndexingError;
}

describe("parseDocument: each allowed type, made by real libraries", { timeout: 15_000 }, () => {
  it("PDF (pdf-lib): text per page with page numbers", async () => {
    const bytes = await makePdf([["Alpha fact on page one", "and a second line"], ["Beta fact on page two"]]);
    const doc = await parseDocument({ bytes, filename: "facts.pdf", kind: "pdf" });
    expect(doc).toEqual({
      kind: "pdf",
      pages: 2,
      segments: [
        { kind: "paragraph", text: "Alpha fact on page one\nand a second line", page: 1 },
        { kind: "paragraph", text: "Beta fact on page two", page: 2 },
      ],
    });
  });

  it("DOCX (docx): headings with levels, paragraphs with inline runs, a table", async () => {
    const doc = await parseDocument({ bytes: await makeDocx(), filename: "handbook.docx", kind: "docx" });
    expect(doc.segments).toEqual([
      { kind: "heading", text: "Warehouse Handbook", level: 1 },
      { kind: "paragraph", text: "The Zephyr dock opens at 06:30 on weekdays." },
      { kind: "heading", text: "Safety", level: 2 },
      { kind: "paragraph", text: "Forklifts yield to pedestrians & carts < 2 t." },
      { kind: "table", text: "Bay | Capacity\nB7 | 340 pallets" },
    ]);
  });

  it("XLSX (exceljs): each row carries its sheet and the sheet's header row", async () => {
    const doc = await parseDocument({ bytes: await makeXlsx(), filename: "stock.xlsx", kind: "xlsx" });
    expect(doc.pages).toBe(2);
    expect(doc.segments).toEqual([
      { kind: "row", text: "A-100 | Widget | 120", sheet: "Inventory", header: "SKU | Name | Stock" },
      { kind: "row", text: "B-200 | Gadget | 75", sheet: "Inventory", header: "SKU | Name | Stock" },
      { kind: "row", text: "Ingrid | Dock lead", sheet: "Staff", header: "Name | Role" },
    ]);
  });

  it("DOC (LibreOffice fixture): paragraphs through word-extractor", async () => {
    const bytes = fs.readFileSync(path.join(FIXTURES, "sample.doc"));
    const doc = await parseDocument({ bytes, filename: "sample.doc", kind: "doc" });
    expect(doc.segments.map((s) => s.text)).toEqual([
      "Quarterly Report",
      "The Zephyr warehouse in Tromsø shipped 4,217 crates in March.",
      "Second paragraph: the loading dock reopens on 12 May.",
    ]);
  });

  it("XLS (LibreOffice fixture): rows with sheet and header through SheetJS 0.20.3", async () => {
    const bytes = fs.readFileSync(path.join(FIXTURES, "sample.xls"));
    const doc = await parseDocument({ bytes, filename: "sample.xls", kind: "xls" });
    expect(doc.segments).toEqual([
      { kind: "row", text: "North | Widget | 120", sheet: "sample", header: "Region | Product | Units" },
      { kind: "row", text: "South | Gadget | 75", sheet: "sample", header: "Region | Product | Units" },
      { kind: "row", text: "East | Sprocket | 9031", sheet: "sample", header: "Region | Product | Units" },
    ]);
  });

  it("XLS (written by SheetJS in the test): every sheet; keys like __proto__ stay plain text", async () => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(
      wb,
      XLSX.utils.aoa_to_sheet([
        ["__proto__", "constructor"],
        ["polluted", "no"],
      ]),
      "__proto__",
    );
    XLSX.utils.book_append_sheet(
      wb,
      XLSX.utils.aoa_to_sheet([
        ["City", "Depot"],
        ["Bergen", "D-4"],
      ]),
      "Depots",
    );
    const bytes: Buffer = XLSX.write(wb, { type: "buffer", bookType: "xls" });
    const doc = await parseDocument({ bytes, filename: "depots.xls", kind: "xls" });
    expect(doc.pages).toBe(2);
    expect(doc.segments).toEqual([
      { kind: "row", text: "polluted | no", sheet: "__proto__", header: "__proto__ | constructor" },
      { kind: "row", text: "Bergen | D-4", sheet: "Depots", header: "City | Depot" },
    ]);
  });

  const TEXT = "Grüße aus Tromsø: “quoted” – 20 €\r\n\r\nSecond paragraph.";
  const swap16 = (b: Buffer) => Buffer.from(b).swap16();
  it.each([
    ["UTF-8", Buffer.from(TEXT, "utf8")],
    ["UTF-8 with BOM", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT, "utf8")])],
    ["UTF-16 LE with BOM", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, "utf16le")])],
    ["UTF-16 BE with BOM", Buffer.concat([Buffer.from([0xfe, 0xff]), swap16(Buffer.from(TEXT, "utf16le"))])],
    ["UTF-16 LE without BOM", Buffer.from(TEXT, "utf16le")],
  ])("TXT in %s", async (_name, bytes) => {
    const doc = await parseDocument({ bytes, filename: "note.txt", kind: "txt" });
    expect(doc.segments).toEqual([
      { kind: "paragraph", text: "Grüße aus Tromsø: “quoted” – 20 €" },
      { kind: "paragraph", text: "Second paragraph." },
    ]);
  });

  it("TXT in windows-1252 (latin1): decoded, € and curly quotes included", async () => {
    // 0x80 = €, 0x93/0x94 = “ ”, 0xE9 = é in windows-1252; not valid UTF-8.
    const bytes = Buffer.from([...Buffer.from("Caf", "latin1"), 0xe9, 0x20, 0x93, 0x6f, 0x6b, 0x94, 0x20, 0x35, 0x80]);
    const doc = await parseDocument({ bytes, filename: "old.txt", kind: "txt" });
    expect(doc.segments).toEqual([{ kind: "paragraph", text: "Café “ok” 5€" }]);
  });

  it("TXT that is binary is refused with a reason", async () => {
    const bytes = Buffer.from([0x00, 0x01, 0x02, 0x03, 0xff, 0x00, 0x10, 0x11, 0x00, 0x00, 0x7f]);
    const err = await parseError(parseDocument({ bytes, filename: "x.txt", kind: "txt" }));
    expect(err.reason).toMatch(/not text/);
  });

  it("Markdown: ATX and setext headings with levels; a # inside fenced code stays code", async () => {
    const md = [
      "# Title",
      "Intro paragraph",
      "over two lines.",
      "",
      "## Section two ##",
      "Body text.",
      "",
      "```sh",
      "# not a heading",
      "```",
      "",
      "Setext Head",
      "===========",
      "Last words.",
    ].join("\n");
    const doc = await parseDocument({ bytes: Buffer.from(md), filename: "readme.md", kind: "md" });
    expect(doc.segments).toEqual([
      { kind: "heading", text: "Title", level: 1 },
      { kind: "paragraph", text: "Intro paragraph\nover two lines." },
      { kind: "heading", text: "Section two", level: 2 },
      { kind: "paragraph", text: "Body text." },
      { kind: "paragraph", text: "```sh\n# not a heading\n```" },
      { kind: "heading", text: "Setext Head", level: 1 },
      { kind: "paragraph", text: "Last words." },
    ]);
  });
});
