// PDF through unpdf's pdf.js with isEvalSupported: false (CVE-2024-4367), so font programs are
// never compiled. Pages without text are OCR'd, up to MAX_OCR_PAGES, so a long scan stays within
// the time cap.
import { extractImages, getDocumentProxy, getResolvedPDFJS } from "unpdf";
import { ParseFailure, REASON } from "./failure.mjs";

const MAX_OCR_PAGES = 20;

const PDF_OPTIONS = {
  isEvalSupported: false,
  disableFontFace: true,
  useSystemFonts: false,
  // No fetches of CMaps or standard fonts from anywhere: text extraction works without them.
  stopAtErrors: false,
  verbosity: 0,
};

/** @param {Buffer} bytes */
export async function parsePdf(bytes) {
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes), PDF_OPTIONS);
  } catch (err) {
    if (err?.name === "PasswordException") throw new ParseFailure(REASON.encryptedPdf);
    throw new ParseFailure(REASON.corrupt);
  }
  const segments = [];
  const scanned = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const content = await page.getTextContent();
    let text = "";
    for (const item of content.items) {
      if (!("str" in item)) continue;
      text += item.str;
      if (item.hasEOL) text += "\n";
    }
    const found = paragraphs(text, n);
    if (found.length === 0 && (await countImages(page)) > 0) scanned.push(n);
    segments.push(...found);
    page.cleanup();
  }
  if (scanned.length > MAX_OCR_PAGES) {
    throw new ParseFailure(
      `the PDF has ${scanned.length} scanned pages without text; OCR reads at most ${MAX_OCR_PAGES}: split the file or add a text layer`,
    );
  }
  if (scanned.length > 0) {
    const { ocrImages, closeOcr } = await import("./ocr.mjs");
    try {
      for (const n of scanned) {
        const texts = await ocrImages(await extractImages(pdf, n));
        segments.push(...paragraphs(texts.join("\n\n"), n));
      }
    } finally {
      await closeOcr();
    }
    segments.sort((a, b) => a.page - b.page);
  }
  const pages = pdf.numPages;
  await pdf.destroy();
  if (segments.length === 0) throw new ParseFailure(scanned.length > 0 ? REASON.scannedPdf : REASON.noText);
  return { segments, pages };
}

function paragraphs(text, page) {
  return text
    .split(/\n[ \t]*\n/)
    .map((p) => p.replace(/[ \t]+\n/g, "\n").trim())
    .filter(Boolean)
    .map((p) => ({ kind: "paragraph", text: p, page }));
}

/** Image paints on a page without text: a scanned page, to tell the user why nothing was found. */
async function countImages(page) {
  try {
    const { OPS } = await getResolvedPDFJS();
    const paints = new Set([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageMaskXObject]);
    const ops = await page.getOperatorList();
    return ops.fnArray.filter((fn) => paints.has(fn)).length;
  } catch {
    return 0;
  }
}
