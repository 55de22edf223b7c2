/**
 * The in-process half of the knowledge bench (bench/knowledge.ts spawns it under
 * `tsx --conditions=react-server`, since app modules import "server-only"): indexes documents with
 * lib/knowledge's indexing functions and runs the ablations that the search endpoint does not expose,
 * composed from the search module's steps.
 * One command per process: argv[2] is a JSON object; one JSON object is printed on stdout.
 */
import { sql as rawSql } from "drizzle-orm";
import { db, sql } from "@/db/client";
import type { ParsedDocument, RetrievedChunk, SearchArgs } from "@/lib/knowledge/contracts";
import { indexDocument } from "@/lib/knowledge/index-chunks";
import { indexChunks } from "@/lib/knowledge/index-chunks/index-document";
import { chunkDocument } from "@/lib/knowledge/index-chunks/chunk-document";
import { fuseRankings, openSearchScope, rankDense, rankLexical, search } from "@/lib/knowledge/search";
import { cranParsed, loadCranfield, type CranDoc } from "./lib/cranfield";

type Command =
  | {
      cmd: "index-cranfield";
      companyId: string;
      collectionId: string;
      docPrefix: string;
      chunking?: { maxTokens: number; overlapTokens: number };
    }
  | { cmd: "eval"; companyId: string; collectionId: string; variants: string[] }
  | { cmd: "synth"; companyId: string; collectionId: string; target: number; docsPerFile: number }
  | { cmd: "parse-throughput"; companyId: string; collectionId: string; files: number; docsPerFile: number };

const cran = loadCranfield()!;

/** Deterministic pseudo-random numbers (mulberry32), so synthetic corpora are the same on every run. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A Cranfield abstract varied: sentences shuffled, ~10 % of words dropped, a copy marker added. */
function vary(d: CranDoc, copy: number, rand: () => number): CranDoc {
  const sentences = d.text.split(/(?<=\.)\s+/).sort(() => rand() - 0.5);
  const text = sentences
    .map((s) =>
      s
        .split(/\s+/)
        .filter(() => rand() > 0.1)
        .join(" "),
    )
    .join(" ");
  return { id: d.id, title: `${d.title} (variant ${copy})`, text };
}

async function chunkCount(companyId: string): Promise<number> {
  const [r] = await sql`SELECT count(*)::int AS n FROM knowledge_chunks WHERE company_id = ${companyId}`;
  return r!.n as number;
}

/** The search endpoint's ranking ("hybrid") or an ablation: without feedback, or one ranker alone. */
async function searchVariant(variant: string, args: SearchArgs): Promise<RetrievedChunk[]> {
  if (variant === "hybrid") return search(db, args);
  const sc = await openSearchScope(db, args);
  if (!sc) return [];
  if (variant === "lexical") return fuseRankings(db, args, sc, { lexical: rankLexical(sc) });
  if (variant === "dense") return fuseRankings(db, args, sc, { dense: rankDense(sc, sc.queryVector) });
  if (variant === "hybrid-noprf")
    return fuseRankings(db, args, sc, { lexical: rankLexical(sc), dense: rankDense(sc, sc.queryVector) });
  throw new Error(`unknown search variant ${variant}`);
}

async function run(c: Command): Promise<unknown> {
  if (c.cmd === "index-cranfield") {
    const t = performance.now();
    let chunks = 0;
    let bytes = 0;
    for (const d of cran.docs) {
      // Two records of the collection are empty: nothing to index (indexDocument refuses them).
      if (!d.title && !d.text) continue;
      const parsed = cranParsed(d);
      bytes += Buffer.byteLength(d.title + d.text);
      const r = await indexChunks(db, {
        companyId: c.companyId,
        collectionId: c.collectionId,
        documentId: `${c.docPrefix}${d.id}`,
        filename: `cran-${d.id}.txt`,
        folderPath: "cranfield",
        chunks: chunkDocument(parsed, c.chunking),
      });
      chunks += r.chunkCount;
    }
    const s = (performance.now() - t) / 1000;
    return { docs: cran.docs.length, chunks, seconds: s, docsPerS: cran.docs.length / s, mbPerS: bytes / 1e6 / s };
  }
  if (c.cmd === "eval") {
    const out: Record<string, Record<number, number[]>> = {};
    for (const v of c.variants) {
      const ranked: Record<number, number[]> = {};
      for (const q of cran.queries) {
        if (v.startsWith("ts_rank_cd")) {
          const norm = Number(v.split(":")[1] ?? 0);
          // OR of the query's lexemes (already stemmed: the `simple` config keeps them as they are).
          const rows = await db.execute(rawSql`
            WITH q AS (SELECT to_tsquery('simple', coalesce(string_agg(quote_literal(lexeme), ' | '), '')) AS q FROM unnest(to_tsvector('english', ${q.text})))
            SELECT document_id FROM knowledge_chunks, q
            WHERE company_id = ${c.companyId} AND collection_id = ${c.collectionId} AND tsv @@ q.q
            ORDER BY ts_rank_cd(tsv, q.q, ${norm}) DESC, id LIMIT 50`);
          ranked[q.n] = dedupe((rows as unknown as { document_id: string }[]).map((r) => r.document_id));
        } else {
          const rows = await searchVariant(v, {
            companyId: c.companyId,
            collectionIds: [c.collectionId],
            query: q.text,
            topK: 50,
          });
          ranked[q.n] = dedupe(rows.map((r) => r.documentId));
        }
      }
      out[v] = ranked;
    }
    return out;
  }
  if (c.cmd === "parse-throughput") return parseThroughput(c);
  // synth: varied copies of Cranfield, `docsPerFile` abstracts per document, until the company has `target` chunks.
  const rand = rng(42);
  let copy = 0;
  let docs = 0;
  let bytes = 0;
  let chunks = await chunkCount(c.companyId);
  const before = chunks;
  const t = performance.now();
  while (chunks < c.target) {
    copy++;
    for (let i = 0; i < cran.docs.length && chunks < c.target; i += c.docsPerFile) {
      const segments: ParsedDocument["segments"] = [];
      for (const d of cran.docs.slice(i, i + c.docsPerFile)) segments.push(...cranParsed(vary(d, copy, rand)).segments);
      bytes += segments.reduce((a, s) => a + Buffer.byteLength(s.text), 0);
      const r = await indexDocument(db, {
        companyId: c.companyId,
        collectionId: c.collectionId,
        documentId: `doc_synth_${c.target}_${copy}_${i}`,
        filename: `synth-${c.target}-${copy}-${i}.txt`,
        folderPath: "synthetic",
        parsed: { kind: "txt", segments },
      });
      chunks += r.chunkCount;
      docs++;
    }
  }
  const s = (performance.now() - t) / 1000;
  return { chunks, docs, seconds: s, docsPerS: docs / s, mbPerS: bytes / 1e6 / s, chunksPerS: (chunks - before) / s };
}

/** Wraps text into lines of at most `width` characters (pdf-lib draws what it is given on one line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const w of text.split(/\s+/)) {
    if (line && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines;
}

/** `files` PDFs and as many DOCX files of `docsPerFile` abstracts each, made with pdf-lib and docx as users' files are. */
async function makeFiles(files: number, docsPerFile: number): Promise<{ pdf: Buffer[]; docx: Buffer[] }> {
  const { PDFDocument, StandardFonts } = await import("pdf-lib");
  const docx = await import("docx");
  const out = { pdf: [] as Buffer[], docx: [] as Buffer[] };
  for (let f = 0; f < files; f++) {
    const abstracts = cran.docs.slice((f * docsPerFile) % 1300, ((f * docsPerFile) % 1300) + docsPerFile);
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    for (const d of abstracts) {
      const page = pdf.addPage([595, 842]);
      let y = 800;
      page.drawText(d.title.slice(0, 90), { x: 40, y, size: 13, font });
      for (const line of wrap(d.text, 95)) {
        y -= 14;
        if (y < 40) break;
        page.drawText(line, { x: 40, y, size: 10, font });
      }
    }
    out.pdf.push(Buffer.from(await pdf.save()));
    const document = new docx.Document({
      sections: [
        {
          children: abstracts.flatMap((d) => [
            new docx.Paragraph({ text: d.title, heading: docx.HeadingLevel.HEADING_1 }),
            new docx.Paragraph({ children: [new docx.TextRun(d.text)] }),
          ]),
        },
      ],
    });
    out.docx.push(await docx.Packer.toBuffer(document));
  }
  return out;
}

/**
 * Parse + chunk + embed + index of real PDF and DOCX files, through lib/knowledge/parse (its
 * capped child process per file). Loaded by path, so this bench compiles where the parsers are
 * not merged yet (bench/knowledge.ts then skips this).
 */
async function parseThroughput(c: { companyId: string; collectionId: string; files: number; docsPerFile: number }) {
  const parseModule = "@/lib/knowledge/parse";
  const { parseDocument } = (await import(/* @vite-ignore */ parseModule)) as {
    parseDocument(input: { bytes: Buffer; filename: string; kind: "pdf" | "docx" }): Promise<ParsedDocument>;
  };
  const files = await makeFiles(c.files, c.docsPerFile);
  const result: Record<string, unknown> = {};
  for (const kind of ["pdf", "docx"] as const) {
    let bytes = 0;
    let chunks = 0;
    let parseMs = 0;
    const t = performance.now();
    for (const [i, file] of files[kind].entries()) {
      bytes += file.length;
      const p = performance.now();
      const parsed = await parseDocument({ bytes: file, filename: `bench-${i}.${kind}`, kind });
      parseMs += performance.now() - p;
      const r = await indexDocument(db, {
        companyId: c.companyId,
        collectionId: c.collectionId,
        documentId: `doc_${kind}_${i}`,
        filename: `bench-${i}.${kind}`,
        parsed,
      });
      chunks += r.chunkCount;
    }
    const s = (performance.now() - t) / 1000;
    result[kind] = {
      files: files[kind].length,
      mb: bytes / 1e6,
      chunks,
      seconds: s,
      docsPerS: files[kind].length / s,
      mbPerS: bytes / 1e6 / s,
      parseShare: parseMs / 1000 / s,
    };
  }
  return result;
}

/** Chunks → documents (the Cranfield id after the prefix), first occurrence wins. */
function dedupe(documentIds: string[]): number[] {
  const seen = new Set<number>();
  for (const id of documentIds) seen.add(Number(id.slice(id.lastIndexOf("_") + 1)));
  return [...seen];
}

const command = JSON.parse(process.argv[2]!) as Command;
run(command)
  .then((r) => {
    process.stdout.write(JSON.stringify(r) + "\n");
    return sql.end({ timeout: 5 });
  })
  .then(() => process.exit(0))
  .catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
