/**
 * The Cranfield collection (README in its directory) and the two measures the retrieval bench
 * reports. Found through CRANFIELD_DIR, default `../shared/data/cranfield` next to the checkout.
 */
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./server";

const CRANFIELD_DIR = path.resolve(ROOT, process.env.CRANFIELD_DIR || "../shared/data/cranfield");

export interface CranDoc {
  id: number;
  title: string;
  text: string;
}
interface CranQuery {
  /** 1..225 in file order: the numbering cranqrel uses (not the file's `.I`). */
  n: number;
  text: string;
}
export interface Cranfield {
  docs: CranDoc[];
  queries: CranQuery[];
  /** query → doc → grade 1 (most relevant) .. 4; -1 ("no relevant document") is left out. */
  qrels: Map<number, Map<number, number>>;
}

function records(text: string): { id: string; f: Record<string, string> }[] {
  const out: { id: string; f: Record<string, string> }[] = [];
  let cur: { id: string; f: Record<string, string> } | null = null;
  let field = "";
  for (const line of text.split("\n")) {
    const m = /^\.I (\d+)\s*$|^\.([TABW])\s*$/.exec(line);
    if (m?.[1]) {
      cur = { id: m[1], f: {} };
      out.push(cur);
      field = "";
    } else if (m?.[2] && cur) {
      field = m[2];
      cur.f[field] = "";
    } else if (cur && field) cur.f[field] += line + "\n";
  }
  return out;
}

/** null when the directory is absent (the bench then skips retrieval quality). */
export function loadCranfield(dir = CRANFIELD_DIR): Cranfield | null {
  if (!fs.existsSync(path.join(dir, "cran.all.1400"))) return null;
  const docs = records(fs.readFileSync(path.join(dir, "cran.all.1400"), "utf8")).map((r) => ({
    id: Number(r.id),
    title: (r.f.T ?? "").trim(),
    text: (r.f.W ?? "").trim(),
  }));
  const queries = records(fs.readFileSync(path.join(dir, "cran.qry"), "utf8")).map((r, i) => ({
    n: i + 1,
    text: (r.f.W ?? "").trim(),
  }));
  const qrels = new Map<number, Map<number, number>>();
  for (const line of fs.readFileSync(path.join(dir, "cranqrel"), "utf8").split("\n")) {
    const [q, d, g] = line.trim().split(/\s+/).map(Number);
    if (!q || !d || !g || g < 1 || g > 4) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, g);
  }
  return { docs, queries, qrels };
}

export interface Quality {
  /** nDCG@10 with gain 2^(5−grade) − 1 (the goal's measure). */
  ndcg10: number;
  /** nDCG@10 with gain 5 − grade (the collection README's). */
  ndcg10Linear: number;
  recall10: number;
}

/** Mean over all queries (a query without relevant documents scores 0 for every system). `ranked`: doc ids, best first. */
export function quality(cran: Cranfield, ranked: Map<number, number[]>): Quality {
  let nd = 0;
  let ndLin = 0;
  let rec = 0;
  for (const q of cran.queries) {
    const rel = cran.qrels.get(q.n) ?? new Map<number, number>();
    const top = (ranked.get(q.n) ?? []).slice(0, 10);
    const ndcg = (gain: (g: number) => number) => {
      let dcg = 0;
      top.forEach((d, i) => (dcg += rel.has(d) ? gain(rel.get(d)!) / Math.log2(i + 2) : 0));
      let idcg = 0;
      [...rel.values()]
        .map(gain)
        .sort((a, b) => b - a)
        .slice(0, 10)
        .forEach((g, i) => (idcg += g / Math.log2(i + 2)));
      return idcg ? dcg / idcg : 0;
    };
    nd += ndcg((g) => 2 ** (5 - g) - 1);
    ndLin += ndcg((g) => 5 - g);
    rec += rel.size ? top.filter((d) => rel.has(d)).length / rel.size : 0;
  }
  const n = cran.queries.length;
  const r4 = (x: number) => Math.round((x / n) * 10_000) / 10_000;
  return { ndcg10: r4(nd), ndcg10Linear: r4(ndLin), recall10: r4(rec) };
}

/** A Cranfield record as a parsed document: its title as a heading, its abstract as a paragraph. */
export const cranParsed = (d: CranDoc) => ({
  kind: "txt" as const,
  segments: [
    { kind: "heading" as const, text: d.title, level: 1 },
    { kind: "paragraph" as const, text: d.text },
  ],
});
