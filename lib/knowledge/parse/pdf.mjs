// PDF through unpdf's bundled pdf.js (5.x, past the CVE-2024-4367 fix) with isEvalSupported: false,
// so font programs are interpreted, never compiled to JavaScript. Text per page, with page numbers.
import { getDocumentProxy, getResolvedPDFJS } from "unpdf";
import { ParseFailure, REASON } from "./failure.mjs";

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
  let images = 0;
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const content = await page.getTextContent();
    let text = "";
    for (const item of content.items) {
      if (!("str" in item)) continue;
      text += item.str;
      if (item.hasEOL) text += "\n";
    }
    const paragraphs = text
      .split(/\n[ \t]*\n/)
      .map((p) => p.replace(/[ \t]+\n/g, "\n").trim())
      .filter(Boolean);
    for (const p of paragraphs) segments.push({ kind: "paragraph", text: p, page: n });
    if (paragraphs.length === 0) images += await countImages(page);
    page.cleanup();
  }
  const pages = pdf.numPages;
  await pdf.destroy();
  if (segments.length === 0) throw new ParseFailure(images > 0 ? REASON.scannedPdf : REASON.noText);
  return { segments, pages };
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
