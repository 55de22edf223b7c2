import "server-only";
import { open } from "node:fs/promises";
import { fileTypeFromFile } from "file-type";
import { DOCUMENT_KIND, type DocumentKind } from "@/db/enums";

export const MIME_BY_KIND: Record<DocumentKind, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  doc: "application/msword",
  xls: "application/vnd.ms-excel",
  txt: "text/plain",
  md: "text/markdown",
};

const TEXT_EXTENSIONS: Record<string, DocumentKind> = {
  txt: DOCUMENT_KIND.txt,
  text: DOCUMENT_KIND.txt,
  md: DOCUMENT_KIND.md,
  markdown: DOCUMENT_KIND.md,
};

const extensionOf = (filename: string) => {
  const dot = filename.lastIndexOf(".");
  return dot > 0 ? filename.slice(dot + 1).toLowerCase() : "";
};

/** Reads the file in pieces (never whole), calling `visit` with each piece. */
async function scan(file: string, visit: (piece: Buffer) => boolean | void): Promise<void> {
  const handle = await open(file, "r");
  try {
    const buf = Buffer.alloc(1024 * 1024);
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return;
      if (visit(buf.subarray(0, bytesRead)) === false) return;
    }
  } finally {
    await handle.close();
  }
}

/** Whether any of `needles` occurs in the file (pieces overlap by the longest needle). */
async function contains(file: string, needles: Buffer[]): Promise<Set<number>> {
  const found = new Set<number>();
  const overlap = Math.max(...needles.map((n) => n.length));
  let tail = Buffer.alloc(0);
  await scan(file, (piece) => {
    const window = Buffer.concat([tail, piece]);
    needles.forEach((n, i) => {
      if (!found.has(i) && window.includes(n)) found.add(i);
    });
    tail = window.subarray(Math.max(0, window.length - overlap));
    return found.size < needles.length;
  });
  return found;
}

const utf16 = (s: string) => Buffer.from(s, "utf16le");

async function startsWithBom(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(3), 0, 3, 0);
    const b = buffer.subarray(0, bytesRead);
    return (
      (b[0] === 0xff && b[1] === 0xfe) ||
      (b[0] === 0xfe && b[1] === 0xff) ||
      (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf)
    );
  } finally {
    await handle.close();
  }
}

/**
 * Legacy Office files are OLE2 (`cfb` to file-type): the directory names `WordDocument` or
 * `Workbook`/`Book` in UTF-16LE; the extension decides when both or neither is found.
 */
async function cfbKind(file: string, ext: string): Promise<DocumentKind | null> {
  const found = await contains(file, [utf16("WordDocument"), utf16("Workbook"), utf16("Book\0")]);
  const word = found.has(0);
  const excel = found.has(1) || found.has(2);
  if (word && !excel) return DOCUMENT_KIND.doc;
  if (excel && !word) return DOCUMENT_KIND.xls;
  if (ext === "doc") return DOCUMENT_KIND.doc;
  if (ext === "xls") return DOCUMENT_KIND.xls;
  return null;
}

/** Control characters that do not occur in text (tab, LF, FF, CR and ESC do). */
const isBinaryControl = (b: number) => b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d && b !== 0x1b;

/**
 * Text has no binary signature: no NULs and valid UTF-8, or very few control characters (a legacy
 * single-byte encoding); UTF-16 with a BOM is text too.
 */
async function looksLikeText(file: string): Promise<boolean> {
  let first = true;
  let utf16Bom = false;
  let utf8 = true;
  let nul = false;
  let controls = 0;
  let total = 0;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  await scan(file, (piece) => {
    if (first) {
      first = false;
      utf16Bom =
        piece.length >= 2 && ((piece[0] === 0xff && piece[1] === 0xfe) || (piece[0] === 0xfe && piece[1] === 0xff));
      if (utf16Bom) return false;
    }
    total += piece.length;
    for (const b of piece) {
      if (b === 0) {
        nul = true;
        return false;
      }
      if (isBinaryControl(b)) controls++;
    }
    if (utf8) {
      try {
        decoder.decode(piece, { stream: true });
      } catch {
        utf8 = false;
      }
    }
  });
  if (utf16Bom) return true;
  if (nul) return false;
  if (utf8) {
    try {
      decoder.decode();
    } catch {
      utf8 = false;
    }
  }
  // UTF-8 or not (then a legacy single-byte encoding the parser decodes), binary bytes are rare in text.
  return controls * 1000 < Math.max(total, 1);
}

/** A zip whose entries file-type did not classify: accept it as docx/xlsx only if its name says so and its entries agree. */
async function zipKind(file: string, ext: string): Promise<DocumentKind | null> {
  if (ext !== "docx" && ext !== "xlsx") return null;
  const found = await contains(file, [Buffer.from("word/"), Buffer.from("xl/")]);
  if (ext === "docx" && found.has(0)) return DOCUMENT_KIND.docx;
  if (ext === "xlsx" && found.has(1)) return DOCUMENT_KIND.xlsx;
  return null;
}

/**
 * Decided by the bytes with the name, never the declared Content-Type: a signature decides the
 * format, the name only what bytes leave open (Word or Excel in OLE2, text or Markdown). Null when
 * not allowed (the caller's 415).
 */
export async function detectDocumentKind(file: string, filename: string): Promise<DocumentKind | null> {
  const ext = extensionOf(filename);
  const textKind = TEXT_EXTENSIONS[ext];
  // A byte order mark opens text, but file-type reads FF FE as an MPEG audio frame sync.
  if (textKind && (await startsWithBom(file))) return (await looksLikeText(file)) ? textKind : null;
  const sniffed = await fileTypeFromFile(file);
  if (sniffed) {
    switch (sniffed.ext) {
      case "pdf":
        return DOCUMENT_KIND.pdf;
      case "docx":
        return DOCUMENT_KIND.docx;
      case "xlsx":
        return DOCUMENT_KIND.xlsx;
      case "cfb":
        return cfbKind(file, ext);
      case "zip":
        return zipKind(file, ext);
      default:
        return null;
    }
  }
  if (!textKind) return null;
  return (await looksLikeText(file)) ? textKind : null;
}
