import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { IndexingError } from "@/lib/knowledge/contracts";
import {
  deflatedZeros,
  makeEncryptedPdf,
  makeFontMatrixExploitPdf,
  makeOperatorFloodPdf,
  makePdf,
  makeZip,
} from "@/test/support/knowledge-files";
import { parseDocument } from "./index";
import { runParser, type ParseLimits } from "./parse-document";

const LIMITS: ParseLimits = { timeoutMs: 30_000, memoryMb: 512, maxOutputBytes: 32 * 1024 * 1024 };
const MB = 1024 * 1024;

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IndexingError);
  expect((err as IndexingError).stage).toBe("parse");
  return (err as IndexingError).reason;
}

// Children, OCR and large inflates take seconds each on shared cores.
describe(
  "parseDocument: broken and hostile files fail with a reason, the server unaffected",
  { timeout: 30_000 },
  () => {
    it("a truncated PDF: corrupt or truncated", async () => {
      const pdf = await makePdf([["Some text"]]);
      const reason = await reasonOf(
        parseDocument({ bytes: pdf.subarray(0, pdf.length >> 1), filename: "cut.pdf", kind: "pdf" }),
      );
      expect(reason).toBe("the file is corrupt or truncated");
    });

    it("an encrypted PDF (user password): the PDF is encrypted", async () => {
      const reason = await reasonOf(parseDocument({ bytes: makeEncryptedPdf(), filename: "locked.pdf", kind: "pdf" }));
      expect(reason).toMatch(/^the PDF is encrypted/);
    });

    it("a PDF whose only page is a scanned image: read by OCR, with its page number", async () => {
      const { PDFDocument } = await import("pdf-lib");
      const { renderTextPng } = await import("@/test/support/png");
      const pdf = await PDFDocument.create();
      pdf.addPage([200, 200]);
      const png = await pdf.embedPng(renderTextPng(["SCANNED PAGE 42"]).png);
      pdf.addPage([400, 100]).drawImage(png, { x: 0, y: 0, width: 400, height: 100 });
      const doc = await parseDocument({ bytes: Buffer.from(await pdf.save()), filename: "scan.pdf", kind: "pdf" });
      expect(doc.pages).toBe(2);
      expect(doc.segments).toHaveLength(1);
      expect(doc.segments[0]).toMatchObject({ kind: "paragraph", page: 2 });
      // The test font's blocky glyphs: OCR reads the digits and "PAGE" reliably, not every letter.
      expect(doc.segments[0]!.text).toMatch(/PAGE 42/);
    });

    it("a PDF of blank pages: no text found", async () => {
      const { PDFDocument } = await import("pdf-lib");
      const pdf = await PDFDocument.create();
      pdf.addPage([200, 200]);
      const reason = await reasonOf(
        parseDocument({ bytes: Buffer.from(await pdf.save()), filename: "blank.pdf", kind: "pdf" }),
      );
      expect(reason).toBe("no text found in the file");
    });

    describe("CVE-2024-4367: a FontMatrix carrying JavaScript", () => {
      const marker = path.join(os.tmpdir(), `cve-2024-4367-${process.pid}-${Date.now()}`);
      const payload = `globalThis.__pwned = 1; import("node:fs").then((fs) => fs.writeFileSync(${JSON.stringify(marker)}, "pwned"))`;
      afterEach(() => fs.rmSync(marker, { force: true }));

      it("the payload is live: evaluated by a plain node process, it writes the marker file", () => {
        // Proves the test below can fail: this string, run as code in a process like the parser's
        // child, does what an exploit would.
        const res = spawnSync(process.execPath, ["-e", `new Function(${JSON.stringify(payload)})()`], {
          timeout: 10_000,
        });
        expect(res.status).toBe(0);
        expect(fs.existsSync(marker)).toBe(true);
      });

      it("parsing the PDF runs none of it: the text is read, no file is written", async () => {
        const doc = await parseDocument({ bytes: makeFontMatrixExploitPdf(payload), filename: "cve.pdf", kind: "pdf" });
        expect(doc.segments).toEqual([{ kind: "paragraph", text: "font matrix probe", page: 1 }]);
        // Give a stray promise in a surviving process time to land: there is none, the child has exited.
        await new Promise((r) => setTimeout(r, 100));
        expect(fs.existsSync(marker)).toBe(false);
      });
    });

    it("a PDF built to spin (60 kB inflating to 400,000 operators): killed at the timeout, the event loop free meanwhile", async () => {
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 20);
      const reason = await reasonOf(
        runParser(
          { bytes: makeOperatorFloodPdf(400_000), filename: "spin.pdf", kind: "pdf" },
          { ...LIMITS, timeoutMs: 800 },
        ),
      );
      clearInterval(ticker);
      expect(reason).toBe("reading the file took longer than 1 s: it may be damaged or built to stall parsers");
      // The parse ran in another process: this one kept serving timers the whole time.
      expect(ticks).toBeGreaterThan(10);
    });

    it("a PDF that balloons the parser's heap: killed at the memory cap with a reason", async () => {
      const reason = await reasonOf(
        runParser(
          { bytes: makeOperatorFloodPdf(2_000_000), filename: "big.pdf", kind: "pdf" },
          { ...LIMITS, memoryMb: 96 },
        ),
      );
      expect(reason).toBe("reading the file needed more than 96 MB of memory");
    });

    it("aborting the signal kills the child and rejects with the signal's reason", async () => {
      const ac = new AbortController();
      const started = runParser(
        { bytes: makeOperatorFloodPdf(400_000), filename: "spin.pdf", kind: "pdf", signal: ac.signal },
        LIMITS,
      );
      setTimeout(() => ac.abort(new Error("job cancelled")), 200);
      await expect(started).rejects.toThrow("job cancelled");
    });

    it("a text larger than the output cap: refused with a reason", async () => {
      const bytes = Buffer.from("lorem ipsum dolor sit amet\n\n".repeat(80_000));
      const reason = await reasonOf(
        runParser({ bytes, filename: "big.txt", kind: "txt" }, { ...LIMITS, maxOutputBytes: 1 * MB }),
      );
      expect(reason).toBe("the document's text is larger than 1 MB");
    });

    it("a DOCX zip bomb whose entry lies about its size (1 kB declared, 150 MB inflated): refused before mammoth", async () => {
      const bomb = makeZip([
        { name: "[Content_Types].xml", data: Buffer.from("<Types/>") },
        { name: "word/document.xml", deflated: await deflatedZeros(150), declared: 1024 },
      ]);
      expect(bomb.length).toBeLessThan(MB);
      const reason = await reasonOf(parseDocument({ bytes: bomb, filename: "bomb.docx", kind: "docx" }));
      expect(reason).toBe("a file inside the archive expands beyond 100 MB");
    });

    it("an XLSX whose entries add up past the total cap: the archive expands beyond 200 MB", async () => {
      const zeros = await deflatedZeros(80);
      const bomb = makeZip(
        [1, 2, 3].map((i) => ({ name: `xl/worksheets/sheet${i}.xml`, deflated: zeros, declared: 80 * MB })),
      );
      const reason = await reasonOf(parseDocument({ bytes: bomb, filename: "bomb.xlsx", kind: "xlsx" }));
      expect(reason).toBe("the archive expands beyond 200 MB");
    });

    it("an OLE file posing as DOCX (how Office stores a password-protected one): a reason naming the password", async () => {
      const ole = fs.readFileSync(path.join(process.cwd(), "test/fixtures/knowledge/sample.doc"));
      const reason = await reasonOf(parseDocument({ bytes: ole, filename: "locked.docx", kind: "docx" }));
      expect(reason).toMatch(/password-protected/);
    });
  },
);

describe("parseDocument: the concurrency queue", { timeout: 30_000 }, () => {
  it("runs more files than PARSE_CONCURRENCY (2) to completion, and an abort while queued rejects at once", async () => {
    const texts = ["one", "two", "three", "four"];
    const ac = new AbortController();
    const all = texts.map((t) => parseDocument({ bytes: Buffer.from(t), filename: `${t}.txt`, kind: "txt" }));
    const queued = parseDocument({ bytes: Buffer.from("never"), filename: "late.txt", kind: "txt", signal: ac.signal });
    ac.abort(new Error("cancelled while queued"));
    await expect(queued).rejects.toThrow("cancelled while queued");
    const docs = await Promise.all(all);
    expect(docs.map((d) => d.segments[0]!.text)).toEqual(texts);
  });
});
