// DOCX through mammoth's HTML (it maps Word's heading styles to <h1>..<h6>), split back into
// headings, paragraphs, list items and tables. The zip is checked before mammoth inflates it.
import mammoth from "mammoth";
import { ParseFailure, REASON } from "./failure.mjs";
import { checkZip } from "./zip-guard.mjs";

// Top-level blocks in mammoth's output; a table is taken whole (its cells' <p> stay inside it).
const BLOCK = /<(h[1-6]|p|li|table)\b[^>]*>([\s\S]*?)<\/\1>/g;
const ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

const plain = (html) =>
  html
    .replace(/<br\s*\/?>/g, "\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e])
    .trim();

function tableText(html) {
  const rows = [];
  for (const row of html.matchAll(/<tr\b[^>]*>([\s\S]*?)<\/tr>/g)) {
    const cells = [...row[1].matchAll(/<t[dh]\b[^>]*>([\s\S]*?)<\/t[dh]>/g)].map((c) =>
      plain(c[1]).replace(/\s+/g, " "),
    );
    if (cells.some(Boolean)) rows.push(cells.join(" | "));
  }
  return rows.join("\n");
}

/** @param {Buffer} bytes */
export async function parseDocx(bytes) {
  checkZip(bytes);
  let html;
  try {
    // Images become empty <img>: their base64 would only bloat the output.
    const result = await mammoth.convertToHtml(
      { buffer: bytes },
      { convertImage: mammoth.images.imgElement(async () => ({ src: "" })) },
    );
    html = result.value;
  } catch (err) {
    if (/encrypt|password/i.test(String(err?.message))) throw new ParseFailure(REASON.encryptedOffice);
    throw new ParseFailure(REASON.corrupt);
  }
  const segments = [];
  for (const m of html.matchAll(BLOCK)) {
    const tag = m[1];
    if (tag === "table") {
      const text = tableText(m[2]);
      if (text) segments.push({ kind: "table", text });
      continue;
    }
    const text = plain(m[2]);
    if (!text) continue;
    if (tag[0] === "h") segments.push({ kind: "heading", text, level: Number(tag[1]) });
    else segments.push({ kind: "paragraph", text: tag === "li" ? `- ${text}` : text });
  }
  if (segments.length === 0) throw new ParseFailure(REASON.noText);
  return { segments };
}
