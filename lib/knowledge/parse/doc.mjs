// DOC (Word 97-2003) through word-extractor: body, footnotes and endnotes as paragraphs. The binary
// format keeps headings as style indexes word-extractor does not expose, so none are marked.
import WordExtractor from "word-extractor";
import { CFB_SIGNATURE, ParseFailure, REASON } from "./failure.mjs";

const paragraphs = (text) =>
  text
    .split(/\n+/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => ({ kind: "paragraph", text: p }));

/** @param {Buffer} bytes */
export async function parseDoc(bytes) {
  // word-extractor would also take a DOCX; a .doc must be an OLE file.
  if (!bytes.subarray(0, 8).equals(CFB_SIGNATURE)) throw new ParseFailure(REASON.corrupt);
  let doc;
  try {
    doc = await new WordExtractor().extract(bytes);
  } catch (err) {
    if (/encrypt|password/i.test(String(err?.message))) throw new ParseFailure(REASON.encryptedOffice);
    throw new ParseFailure(REASON.corrupt);
  }
  const segments = [...paragraphs(doc.getBody()), ...paragraphs(doc.getFootnotes()), ...paragraphs(doc.getEndnotes())];
  if (segments.length === 0) throw new ParseFailure(REASON.noText);
  return { segments };
}
