import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Document, Packer, Paragraph } from "docx";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectDocumentKind } from "./detect-type";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "detect-type-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function kindOf(name: string, bytes: Uint8Array | string) {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}-${name.replace(/\//g, "_")}`);
  await writeFile(file, bytes);
  return detectDocumentKind(file, name);
}

/** An OLE2 compound file header followed by a directory entry name in UTF-16LE. */
function cfb(streamName: string | null): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header);
  const dirEntry = Buffer.alloc(128);
  if (streamName) Buffer.from(`${streamName}\0`, "utf16le").copy(dirEntry);
  return Buffer.concat([header, Buffer.alloc(512), dirEntry]);
}

describe("detectDocumentKind: the bytes decide, the name settles what they leave open", () => {
  it("PDF, DOCX and XLSX by signature, whatever the name", async () => {
    expect(await kindOf("a.pdf", "%PDF-1.7\n1 0 obj\n")).toBe("pdf");
    expect(await kindOf("misnamed.txt", "%PDF-1.4\n")).toBe("pdf");
    const docx = await Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph("Hello")] }] }));
    expect(await kindOf("report.docx", docx)).toBe("docx");
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet("Sheet1").addRow(["a", "b"]);
    expect(await kindOf("sheet.xlsx", Buffer.from(await wb.xlsx.writeBuffer()))).toBe("xlsx");
  });

  it("legacy Office: Word or Excel by the compound file's stream names, else by extension", async () => {
    expect(await kindOf("old.doc", cfb("WordDocument"))).toBe("doc");
    expect(await kindOf("named-wrong.xls", cfb("WordDocument"))).toBe("doc");
    expect(await kindOf("old.xls", cfb("Workbook"))).toBe("xls");
    expect(await kindOf("old.xls", cfb(null))).toBe("xls");
    expect(await kindOf("old.bin", cfb(null))).toBeNull();
  });

  it("text by extension and content: UTF-8, a legacy encoding, UTF-16 with BOM; binary refused", async () => {
    expect(await kindOf("notes.txt", "plain text\n")).toBe("txt");
    expect(await kindOf("notes.md", "# Title\n\ntext")).toBe("md");
    expect(await kindOf("latin1.txt", Buffer.from("caf\xe9 cr\xe8me", "latin1"))).toBe("txt");
    expect(await kindOf("utf16.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("hello", "utf16le")]))).toBe(
      "txt",
    );
    expect(await kindOf("empty.txt", "")).toBe("txt");
    expect(await kindOf("nul.txt", Buffer.from([0x61, 0x00, 0x62]))).toBeNull();
    expect(await kindOf("noext", "plain text")).toBeNull();
    expect(await kindOf("page.html", "<html></html>")).toBeNull();
  });

  it("anything else is refused: an image named .pdf, an executable, a zip that is not Office", async () => {
    const png = Buffer.from([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 0,
      0, 0, 0,
    ]);
    expect(await kindOf("image.pdf", png)).toBeNull();
    const exe = Buffer.alloc(256);
    exe.write("MZ", 0, "latin1");
    exe.writeUInt32LE(0x80, 0x3c);
    exe.write("PE\0\0", 0x80, "latin1");
    expect(await kindOf("setup.txt", exe)).toBeNull();
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(26), Buffer.from("hello.txt")]);
    expect(await kindOf("archive.docx", zip)).toBeNull();
  });
});
