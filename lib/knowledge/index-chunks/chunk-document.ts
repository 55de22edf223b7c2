import { countTextTokens, truncateTextTokens } from "@/lib/providers/tokens";
import type { ChunkInput, ParsedDocument, Segment } from "../contracts";

/** Chunk size and overlap in o200k tokens (the billing tokenizer); chosen with bench/knowledge.ts --chunk-sweep. */
const CHUNK_TOKENS = 256;
const OVERLAP_TOKENS = 32;

export interface ChunkOptions {
  maxTokens?: number;
  overlapTokens?: number;
}

/** Never split unless it alone exceeds the chunk size: a sentence, a heading, a row. */
interface Unit {
  text: string;
  tokens: number;
  page?: number;
  heading?: string;
  /** Rows: "sheet\u0000header", so a chunk never mixes sheets and each chunk repeats its header. */
  table?: { sheet?: string; header?: string };
  isHeading: boolean;
}

// Sentence ends followed by whitespace; long paragraphs are packed sentence by sentence.
const SENTENCE = /(?<=[.!?;:])\s+(?=\S)/u;

/** A word longer than a chunk (one unbroken run) cut into pieces of at most `max` tokens. */
function cutWord(word: string, max: number): string[] {
  const pieces: string[] = [];
  for (let rest = word; rest;) {
    const { text } = truncateTextTokens(rest, max);
    // A token inside one character keeps nothing of it: that character goes alone.
    const piece = text || String.fromCodePoint(rest.codePointAt(0)!);
    pieces.push(piece);
    rest = rest.slice(piece.length);
  }
  return pieces;
}

function splitLong(text: string, max: number): string[] {
  // A sentence longer than a chunk: cut on whitespace into pieces of at most `max` tokens.
  const words = text.split(/(\s+)/).flatMap((w) => {
    const t = countTextTokens(w);
    return t > max ? cutWord(w, max).map((piece) => ({ w: piece, t: countTextTokens(piece) })) : [{ w, t }];
  });
  const out: string[] = [];
  let cur = "";
  let curTokens = 0;
  for (const { w, t } of words) {
    if (curTokens + t > max && cur.trim()) {
      out.push(cur.trim());
      cur = "";
      curTokens = 0;
    }
    cur += w;
    curTokens += t;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

function unitsOf(segments: Segment[], max: number): Unit[] {
  const units: Unit[] = [];
  let heading: string | undefined;
  for (const s of segments) {
    const text = s.text.trim();
    if (!text) continue;
    if (s.kind === "heading") {
      heading = text;
      units.push({ text, tokens: countTextTokens(text), page: s.page, heading, isHeading: true });
      continue;
    }
    const table = s.kind === "row" ? { sheet: s.sheet, header: s.header } : undefined;
    const pieces = s.kind === "paragraph" ? text.split(SENTENCE) : [text];
    for (const p of pieces) {
      const tokens = countTextTokens(p);
      for (const q of tokens > max ? splitLong(p, max) : [p]) {
        units.push({
          text: q,
          tokens: tokens > max ? countTextTokens(q) : tokens,
          page: s.page,
          heading,
          table,
          isHeading: false,
        });
      }
    }
  }
  return units;
}

const tablePreamble = (t: Unit["table"]) =>
  t ? [t.sheet ? `Sheet: ${t.sheet}` : "", t.header ?? ""].filter(Boolean).join("\n") : "";
const sameTable = (a: Unit["table"], b: Unit["table"]) =>
  (!a && !b) || (!!a && !!b && a.sheet === b.sheet && a.header === b.header);

/**
 * Chunks of whole sentences up to `maxTokens`, overlapping by up to `overlapTokens`. A heading
 * starts a new chunk and is recorded on those below it; sheet rows chunk per sheet, each chunk led
 * by the sheet's name and header.
 */
export function chunkDocument(parsed: ParsedDocument, opts: ChunkOptions = {}): ChunkInput[] {
  const max = opts.maxTokens ?? CHUNK_TOKENS;
  const overlap = opts.overlapTokens ?? OVERLAP_TOKENS;
  const units = unitsOf(parsed.segments, max);
  const chunks: ChunkInput[] = [];
  let cur: Unit[] = [];
  let curTokens = 0;
  let fresh = 0; // units in `cur` not carried over from the previous chunk

  const emit = () => {
    if (fresh === 0) return;
    const first = cur.find((u) => !u.isHeading) ?? cur[0]!;
    const preamble = tablePreamble(first.table);
    const body = cur.map((u) => u.text).join(first.table ? "\n" : " ");
    const text = preamble ? `${preamble}\n${body}` : body;
    const heading = cur.findLast((u) => u.isHeading)?.text ?? first.heading;
    chunks.push({
      position: chunks.length,
      text,
      tokens: countTextTokens(text),
      ...(first.page !== undefined ? { page: first.page } : {}),
      ...(first.table?.sheet !== undefined ? { sheet: first.table.sheet } : {}),
      ...(heading !== undefined ? { heading } : {}),
    });
  };
  const restart = (carry: boolean) => {
    let keep: Unit[] = [];
    if (carry && overlap > 0) {
      let t = 0;
      for (let i = cur.length - 1; i >= 0; i--) {
        const u = cur[i]!;
        if (u.isHeading || t + u.tokens > overlap) break;
        keep = [u, ...keep];
        t += u.tokens;
      }
    }
    cur = keep;
    curTokens = keep.reduce((a, u) => a + u.tokens, 0);
    fresh = 0;
  };

  for (const u of units) {
    const tableBreak =
      cur.length > 0 && !sameTable(cur[cur.length - 1]!.table, u.table) && !cur[cur.length - 1]!.isHeading;
    const hasBody = cur.some((c) => !c.isHeading);
    // The header a row chunk repeats counts against its size.
    const limit = max - (u.table ? countTextTokens(tablePreamble(u.table)) : 0);
    if ((u.isHeading && hasBody) || tableBreak) {
      emit();
      restart(false);
    } else if (curTokens + u.tokens > limit && fresh > 0) {
      emit();
      // Rows carry no overlap: each row chunk repeats the header, a repeated row adds nothing.
      restart(!u.table);
      // The overlap yields to the new unit: a chunk stays within the size.
      while (fresh === 0 && cur.length > 0 && curTokens + u.tokens > limit) curTokens -= cur.shift()!.tokens;
    }
    cur.push(u);
    curTokens += u.tokens;
    fresh++;
  }
  emit();
  return chunks;
}
