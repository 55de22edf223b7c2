/**
 * Files for the knowledge parser's tests, built by the real libraries (pdf-lib, docx, exceljs) or,
 * for the hostile ones, byte by byte (raw PDF objects, zip headers), so nothing binary is committed
 * except the DOC and XLS fixtures no installed library can write (test/fixtures/knowledge/README.md).
 */
import zlib from "node:zlib";
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from "docx";
import ExcelJS from "exceljs";
import { PDFDocument, StandardFonts } from "pdf-lib";

export async function makePdf(pages: string[][]): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = pdf.addPage([595, 842]);
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 20, size: 12, font }));
  }
  return Buffer.from(await pdf.save());
}

export async function makeDocx(): Promise<Buffer> {
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: "Warehouse Handbook", heading: HeadingLevel.HEADING_1 }),
          new Paragraph({
            children: [
              new TextRun("The Zephyr dock opens at "),
              new TextRun({ text: "06:30", bold: true }),
              new TextRun(" on weekdays."),
            ],
          }),
          new Paragraph({ text: "Safety", heading: HeadingLevel.HEADING_2 }),
          new Paragraph("Forklifts yield to pedestrians & carts < 2 t."),
          new Table({
            rows: [
              new TableRow({
                children: [
                  new TableCell({ children: [new Paragraph("Bay")] }),
                  new TableCell({ children: [new Paragraph("Capacity")] }),
                ],
              }),
              new TableRow({
                children: [
                  new TableCell({ children: [new Paragraph("B7")] }),
                  new TableCell({ children: [new Paragraph("340 pallets")] }),
                ],
              }),
            ],
          }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

export async function makeXlsx(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const inv = wb.addWorksheet("Inventory");
  inv.addRow(["SKU", "Name", "Stock"]);
  inv.addRow(["A-100", "Widget", 120]);
  inv.addRow(["B-200", "Gadget", 75]);
  const staff = wb.addWorksheet("Staff");
  staff.addRow(["Name", "Role"]);
  staff.addRow(["Ingrid", "Dock lead"]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** A PDF from raw object bodies (object n = objects[n-1]), with a correct xref table. */
export function rawPdf(objects: string[], trailerExtra = ""): Buffer {
  let body = "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  objects.forEach((obj, i) => {
    offsets.push(Buffer.byteLength(body, "latin1"));
    body += `${i + 1} 0 obj\n${obj}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, "latin1");
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) body += `${String(o).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra}>>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, "latin1");
}

const stream = (content: string) =>
  `<< /Length ${Buffer.byteLength(content, "latin1")} >>\nstream\n${content}\nendstream`;

function onePage(fontDict: string, content: string, extra: string[] = []): string[] {
  return [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    stream(content),
    fontDict,
    ...extra,
  ];
}

/**
 * Standard security handler, revision 3, with a user password: the /U entry matches no key derived
 * from the empty password, so a reader must ask for one (no real encryption is needed for that).
 */
export function makeEncryptedPdf(): Buffer {
  const hex32 = (b: number) => "<" + b.toString(16).padStart(2, "0").repeat(32) + ">";
  const objects = onePage(
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    "BT /F1 24 Tf 72 700 Td (secret) Tj ET",
    [`<< /Filter /Standard /V 2 /R 3 /Length 128 /P -3904 /O ${hex32(0x5a)} /U ${hex32(0xa5)} >>`],
  );
  return rawPdf(objects, `/Encrypt 6 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>] `);
}

/**
 * The CVE-2024-4367 shape (Codean Labs' write-up): a Type1 font whose /FontMatrix string pdf.js
 * before 4.2.67, with isEvalSupported, pasted into a compiled glyph function, running `payload`.
 */
export function makeFontMatrixExploitPdf(payload: string): Buffer {
  const escaped = payload.replace(/\\/g, "\\\\").replace(/\(/g, "\\(").replace(/\)/g, "\\)");
  const matrix = `[1 0 0 1 0 (0\\); ${escaped}; //)]`;
  const objects = onePage(
    `<< /Type /Font /Subtype /Type1 /BaseFont /PoCFont /FontMatrix ${matrix} /FirstChar 32 /LastChar 126 /FontDescriptor 6 0 R >>`,
    "BT /F1 24 Tf 72 700 Td (font matrix probe) Tj ET",
    [
      "<< /Type /FontDescriptor /FontName /PoCFont /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile 7 0 R >>",
      `<< /Length1 ${TYPE1_STUB.length} /Length2 0 /Length3 0 /Length ${TYPE1_STUB.length} >>\nstream\n${TYPE1_STUB}\nendstream`,
    ],
  );
  return rawPdf(objects);
}

// A Type1 font program's clear-text part, so pdf.js takes the embedded-font path (the one whose
// glyphs it compiled) instead of substituting a standard font.
const TYPE1_STUB = [
  "%!PS-AdobeFont-1.0: PoCFont 001.000",
  "12 dict begin",
  "/FontName /PoCFont def",
  "/FontType 1 def",
  "/FontMatrix [0.001 0 0 0.001 0 0] readonly def",
  "/Encoding StandardEncoding def",
  "/FontBBox {0 0 1000 1000} readonly def",
  "currentdict end",
  "currentfile eexec",
].join("\n");

/**
 * A valid one-page PDF whose content stream inflates to `ops` text operators: 60 kB on disk that
 * keeps a parser busy for as long as it is let run.
 */
export function makeOperatorFloodPdf(ops: number): Buffer {
  const content = Buffer.from("BT /F1 1 Tf ".concat("0 0 Td (spin) Tj ".repeat(ops), "ET"), "latin1");
  const deflated = zlib.deflateSync(content, { level: 9 });
  const head = onePage("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", "").slice(0, 3);
  // The stream's bytes are binary: build this PDF from buffers, with a correct xref.
  const parts: Buffer[] = [Buffer.from("%PDF-1.7\n", "latin1")];
  const offsets: number[] = [];
  let size = parts[0]!.length;
  const add = (b: Buffer) => {
    parts.push(b);
    size += b.length;
  };
  const objects: (string | Buffer)[] = [
    ...head,
    Buffer.concat([
      Buffer.from(`<< /Length ${deflated.length} /Filter /FlateDecode >>\nstream\n`, "latin1"),
      deflated,
      Buffer.from("\nendstream", "latin1"),
    ]),
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  objects.forEach((obj, i) => {
    offsets.push(size);
    add(
      Buffer.concat([
        Buffer.from(`${i + 1} 0 obj\n`, "latin1"),
        typeof obj === "string" ? Buffer.from(obj, "latin1") : obj,
        Buffer.from("\nendobj\n", "latin1"),
      ]),
    );
  });
  const xref = size;
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) tail += `${String(o).padStart(10, "0")} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  add(Buffer.from(tail, "latin1"));
  return Buffer.concat(parts);
}

/**
 * A zip (entries stored as given, deflated) written by hand, so the central directory can lie:
 * `declared` overrides the uncompressed size written for an entry.
 */
export function makeZip(entries: { name: string; data?: Buffer; deflated?: Buffer; declared?: number }[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, "utf8");
    const deflated = e.deflated ?? zlib.deflateRawSync(e.data ?? Buffer.alloc(0));
    const size = e.declared ?? e.data?.length ?? 0;
    const crc = e.data ? zlib.crc32(e.data) : 0;
    const lfh = Buffer.alloc(30);
    lfh.writeUInt32LE(0x04034b50, 0);
    lfh.writeUInt16LE(20, 4);
    lfh.writeUInt16LE(8, 8);
    lfh.writeUInt32LE(crc, 14);
    lfh.writeUInt32LE(deflated.length, 18);
    lfh.writeUInt32LE(size, 22);
    lfh.writeUInt16LE(name.length, 26);
    const cdh = Buffer.alloc(46);
    cdh.writeUInt32LE(0x02014b50, 0);
    cdh.writeUInt16LE(20, 4);
    cdh.writeUInt16LE(20, 6);
    cdh.writeUInt16LE(8, 10);
    cdh.writeUInt32LE(crc, 16);
    cdh.writeUInt32LE(deflated.length, 20);
    cdh.writeUInt32LE(size, 24);
    cdh.writeUInt16LE(name.length, 28);
    cdh.writeUInt32LE(offset, 42);
    locals.push(lfh, name, deflated);
    central.push(cdh, name);
    offset += 30 + name.length + deflated.length;
  }
  const cd = Buffer.concat(central);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}

/** Raw deflate of `mb` MiB of zeros, streamed so the zeros never sit in memory at once. */
export async function deflatedZeros(mb: number): Promise<Buffer> {
  const deflate = zlib.createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on("data", (c: Buffer) => out.push(c));
  const done = new Promise((resolve) => deflate.on("end", resolve));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < mb; i++) if (!deflate.write(zeros)) await new Promise((r) => deflate.once("drain", r));
  deflate.end();
  await done;
  return Buffer.concat(out);
}
