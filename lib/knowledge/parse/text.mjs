// TXT and Markdown: BOM, then UTF-16 by its NUL pattern, then strict UTF-8, else windows-1252 (what
// "latin1" from Windows tools really is, as WHATWG maps it).
import { ParseFailure, REASON } from "./failure.mjs";

/** @param {Buffer} bytes @returns {{ text: string, encoding: string }} */
export function decodeText(bytes) {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return decode("utf-8", bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return decode("utf-16le", bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return decode("utf-16be", bytes.subarray(2));
  const bomless = sniffUtf16(bytes);
  if (bomless) return decode(bomless, bytes);
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), encoding: "utf-8" };
  } catch {
    return { text: decodeWindows1252(bytes), encoding: "windows-1252" };
  }
}

// Node's TextDecoder("windows-1252") decodes as ISO-8859-1, leaving 0x80–0x9F as C1 controls
// (nodejs/node#56542), where Windows text has €, curly quotes and dashes: mapped here.
const CP1252_HIGH =
  "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f" +
  "\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178";

function decodeWindows1252(bytes) {
  const latin1 = bytes.toString("latin1");
  return latin1.replace(/[\x80-\x9f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]);
}

function decode(encoding, bytes) {
  return { text: new TextDecoder(encoding).decode(bytes), encoding };
}

/** Mostly-ASCII UTF-16 has a NUL in every other byte; the side it falls on gives the byte order. */
function sniffUtf16(bytes) {
  const n = Math.min(bytes.length - (bytes.length % 2), 4096);
  if (n < 4) return null;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) even++;
    if (bytes[i + 1] === 0) odd++;
  }
  const pairs = n / 2;
  if (odd > pairs * 0.4 && even < pairs * 0.05) return "utf-16le";
  if (even > pairs * 0.4 && odd < pairs * 0.05) return "utf-16be";
  return null;
}

/** Refuses binary data passed off as text: NULs or many C0 controls survive no text editor. */
function assertText(text) {
  const sample = text.slice(0, 65536);
  let controls = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c === 0) throw new ParseFailure(REASON.notText);
    if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) controls++;
  }
  if (controls > sample.length * 0.01 + 8) throw new ParseFailure(REASON.notText);
}

function paragraphs(text) {
  return text
    .split(/\n[ \t]*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => ({ kind: "paragraph", text: p }));
}

/** @param {Buffer} bytes */
export function parseTxt(bytes) {
  const { text } = decodeText(bytes);
  assertText(text);
  return { segments: paragraphs(text.replace(/\r\n?/g, "\n")) };
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Markdown: ATX (`#`) and setext headings become headings; fenced code never does. */
export function parseMd(bytes) {
  const { text } = decodeText(bytes);
  assertText(text);
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const segments = [];
  let block = [];
  let fence = null;
  const flush = () => {
    const t = block.join("\n").trim();
    if (t) segments.push({ kind: "paragraph", text: t });
    block = [];
  };
  for (const line of lines) {
    if (fence) {
      block.push(line);
      if (line.trim().startsWith(fence)) fence = null;
      continue;
    }
    const f = FENCE.exec(line);
    if (f) {
      fence = f[1];
      block.push(line);
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      flush();
      const t = (atx[2] ?? "").trim();
      if (t) segments.push({ kind: "heading", text: t, level: atx[1].length });
      continue;
    }
    // Setext: a non-empty paragraph of one line underlined with === (h1) or --- (h2).
    if (block.length === 1 && block[0].trim() && /^ {0,3}(=+|-+)[ \t]*$/.test(line)) {
      segments.push({ kind: "heading", text: block[0].trim(), level: line.trim()[0] === "=" ? 1 : 2 });
      block = [];
      continue;
    }
    if (!line.trim()) flush();
    else block.push(line);
  }
  flush();
  return { segments };
}
