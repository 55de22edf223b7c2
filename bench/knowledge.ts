/**
 * Knowledge benchmark, printed and saved to bench/results/knowledge-latest.json:
 *
 *  (a) Retrieval quality on Cranfield (CRANFIELD_DIR, default ../shared/data/cranfield next to the
 *      checkout; skipped with a message when absent): the 1,400 abstracts indexed with
 *      indexDocument (title as heading, abstract as paragraph), the 225 queries sent to
 *      POST /v1/knowledge/{id}/search (top_k 50, chunks folded into their documents) on a
 *      production server; nDCG@10 (gain 2^(5−grade) − 1, and gain 5 − grade) and recall@10, side by
 *      side with MiniSearch 7.2 in the same run, configured for English as its users would (the
 *      same stop words as ours, Porter stemming from lib/knowledge/porter.ts, BM25 defaults), on the
 *      same text. Ablations in-process (bench/knowledge-child.ts): BM25 alone, dense alone, hybrid
 *      without feedback, PostgreSQL ts_rank_cd. Goal: ours ≥ 1.05 × the peer's nDCG@10.
 *  (b) Search latency through the endpoint, p50/p95 of sequential queries, for one company at
 *      10,000 and 100,000 chunks (varied copies of Cranfield), no pgvector. Goal: p95 < 100 ms at 100,000.
 *  (c) Indexing throughput: chunk + embed + index (documents, MB and chunks per second), and for
 *      PDF and DOCX files made with pdf-lib and docx, parse (lib/knowledge/parse, when on the
 *      branch) + chunk + embed + index.
 *
 *   npm run bench -- --knowledge-only [--sizes 10000,100000 --latency-queries 200 --chunk-sweep]
 *
 * Database: DATABASE_URL set → a fresh cockpit_bench_<timestamp> database on that server, dropped
 * at the end; unset → an embedded PostgreSQL in a temp dir.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import MiniSearch from "minisearch";
import postgres from "postgres";
import { ENGLISH_STOP_WORDS } from "../lib/knowledge/embed/features";
import { porterStem } from "../lib/knowledge/porter";
import { createCompany, createKey } from "./lib/admin";
import { loadCranfield, quality, type Cranfield, type Quality } from "./lib/cranfield";
import { provisionDatabase, type BenchDatabase } from "./lib/db";
import { rssKb } from "./lib/proc";
import { appEnv, cleanEnv, prepareBuild, ROOT, startNext, type NextServer } from "./lib/server";
import { fmt, renderTable } from "./lib/table";

export interface KnowledgeBenchOptions {
  databaseUrl?: string;
  isolatedBuild?: boolean;
  rebuild?: boolean;
  sizes?: number[];
  latencyQueries?: number;
  chunkSweep?: boolean;
  print?: boolean;
}

const TARGET_RATIO = 1.05;
const TARGET_P95_MS = 100;
const TSX_CLI = path.join(ROOT, "node_modules/tsx/dist/cli.mjs");
const RESULTS_DIR = path.join(ROOT, "bench/results");

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the child's one JSON line, shaped by its command
function child(databaseUrl: string, command: Record<string, unknown>): Promise<any> {
  const proc = spawn(
    process.execPath,
    [
      "--max-old-space-size=4096",
      TSX_CLI,
      "--conditions=react-server",
      "bench/knowledge-child.ts",
      JSON.stringify(command),
    ],
    {
      cwd: ROOT,
      env: cleanEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: "warn", NODE_ENV: "production" }),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  proc.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
  proc.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
  return new Promise((resolve, reject) => {
    proc.on("error", reject);
    proc.on("close", (code) => {
      if (code !== 0)
        return reject(
          new Error(`knowledge-child ${String(command.cmd)} failed (exit ${code}): ${err.trim().slice(-2000)}`),
        );
      resolve(JSON.parse(out.trim().split("\n").pop()!));
    });
  });
}

const toMap = (r: Record<string, number[]>) => new Map(Object.entries(r).map(([k, v]) => [Number(k), v]));

/** MiniSearch as an English-language user sets it up: stop words out, Porter stems, BM25 defaults, OR queries. */
function peer(cran: Cranfield, fields: string[]): { quality: Quality; indexMs: number } {
  const processTerm = (t: string) => {
    const w = t.toLowerCase();
    return ENGLISH_STOP_WORDS.has(w) ? null : porterStem(w);
  };
  const t = performance.now();
  const ms = new MiniSearch({ fields, storeFields: [], processTerm });
  ms.addAll(
    cran.docs.map((d) => ({ id: d.id, title: d.title, text: fields.length === 1 ? `${d.title}\n${d.text}` : d.text })),
  );
  const indexMs = performance.now() - t;
  const ranked = new Map(cran.queries.map((q) => [q.n, ms.search(q.text).map((r) => r.id as number)]));
  return { quality: quality(cran, ranked), indexMs };
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export async function runKnowledgeBench(
  options: KnowledgeBenchOptions = {},
): Promise<{ valid: boolean; skipped?: string }> {
  const o = {
    sizes: options.sizes ?? [10_000, 100_000],
    latencyQueries: options.latencyQueries ?? 200,
    print: options.print ?? true,
  };
  const started = Date.now();
  const log = (m: string) =>
    o.print && process.stderr.write(`[bench:knowledge +${Math.round((Date.now() - started) / 1000)}s] ${m}\n`);
  const cran = loadCranfield();
  if (!cran) {
    const skipped = `Cranfield not found in ${process.env.CRANFIELD_DIR || "../shared/data/cranfield"} (set CRANFIELD_DIR): knowledge bench skipped`;
    log(skipped);
    return { valid: true, skipped };
  }

  let db: BenchDatabase | undefined;
  let server: NextServer | undefined;
  let build: { cleanup: () => void } | undefined;
  let sqlc: postgres.Sql | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-knowledge-bench-"));
  try {
    db = await provisionDatabase({ serverUrl: options.databaseUrl ?? (process.env.DATABASE_URL || undefined) });
    sqlc = postgres(db.url, { max: 2, onnotice: () => {} });
    // The collections table is the knowledge API's; a stand-in where it is not migrated yet.
    await sqlc`CREATE TABLE IF NOT EXISTS knowledge_collections (id text PRIMARY KEY, company_id text NOT NULL, name text NOT NULL, is_active boolean NOT NULL DEFAULT true)`;
    const tenant = async (name: string) => {
      const companyId = await createCompany(db!.url, name);
      const key = await createKey(db!.url, companyId, { scopes: ["chat"], name });
      const collectionId = `kb_bench_${name.replace(/\W/g, "_")}`;
      await sqlc!`INSERT INTO knowledge_collections (id, company_id, name) VALUES (${collectionId}, ${companyId}, ${name})`;
      return { companyId, key: key.secret, collectionId };
    };

    // (a) quality: index, ablations in-process, then the measured run through the endpoint.
    const cranTenant = await tenant("cranfield");
    log("indexing Cranfield (chunk + embed + index)");
    const cranIndex = await child(db.url, {
      cmd: "index-cranfield",
      companyId: cranTenant.companyId,
      collectionId: cranTenant.collectionId,
      docPrefix: "doc_cran_",
    });
    log(`indexed ${cranIndex.docs} docs into ${cranIndex.chunks} chunks in ${cranIndex.seconds.toFixed(1)} s`);
    const variants = ["hybrid", "hybrid-noprf", "lexical", "dense", "ts_rank_cd:0", "ts_rank_cd:1", "ts_rank_cd:32"];
    const ablationRuns = (await child(db.url, {
      cmd: "eval",
      companyId: cranTenant.companyId,
      collectionId: cranTenant.collectionId,
      variants,
    })) as Record<string, Record<string, number[]>>;
    const ablations = Object.fromEntries(Object.entries(ablationRuns).map(([v, r]) => [v, quality(cran, toMap(r))]));

    let chunkSweep: Record<string, { chunks: number; hybrid: Quality; lexical: Quality }> | null = null;
    if (options.chunkSweep) {
      chunkSweep = {};
      for (const [maxTokens, overlapTokens] of [
        [64, 8],
        [128, 16],
        [192, 24],
        [256, 0],
        [256, 32],
        [256, 64],
        [384, 48],
        [512, 64],
      ] as const) {
        const companyId = `co_sweep_${maxTokens}_${overlapTokens}`;
        const collectionId = `kb_${companyId}`;
        const idx = await child(db.url, {
          cmd: "index-cranfield",
          companyId,
          collectionId,
          docPrefix: `doc_${companyId}_`,
          chunking: { maxTokens, overlapTokens },
        });
        const r = (await child(db.url, {
          cmd: "eval",
          companyId,
          collectionId,
          variants: ["hybrid", "lexical"],
        })) as Record<string, Record<string, number[]>>;
        chunkSweep[`${maxTokens}/${overlapTokens}`] = {
          chunks: idx.chunks,
          hybrid: quality(cran, toMap(r.hybrid!)),
          lexical: quality(cran, toMap(r.lexical!)),
        };
        log(
          `chunk sweep ${maxTokens}/${overlapTokens}: hybrid nDCG@10 ${chunkSweep[`${maxTokens}/${overlapTokens}`]!.hybrid.ndcg10}`,
        );
      }
    }

    const prepared = await prepareBuild({ isolated: options.isolatedBuild, force: options.rebuild });
    build = prepared;
    server = await startNext({ env: appEnv(db.url, dataDir), appRoot: prepared.appRoot });
    log(`server pid ${server.pid} on ${server.baseUrl}`);
    const searchHttp = async (t: { key: string; collectionId: string }, query: string, topK: number) => {
      const res = await fetch(`${server!.baseUrl}/v1/knowledge/${t.collectionId}/search`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
        body: JSON.stringify({ query, top_k: topK }),
      });
      if (res.status !== 200) throw new Error(`search answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: { document_id: string; score: number }[] }).data;
    };
    const httpRanked = new Map<number, number[]>();
    for (const q of cran.queries) {
      const data = await searchHttp(cranTenant, q.text, 50);
      httpRanked.set(q.n, [...new Set(data.map((d) => Number(d.document_id.slice("doc_cran_".length))))]);
    }
    const ours = quality(cran, httpRanked);
    const peerSingle = peer(cran, ["text"]);
    const peerFields = peer(cran, ["title", "text"]);
    const ratio = ours.ndcg10 / peerSingle.quality.ndcg10;
    log(`ours nDCG@10 ${ours.ndcg10} vs MiniSearch ${peerSingle.quality.ndcg10} (×${ratio.toFixed(3)})`);

    // (b) latency and (c) throughput: one company grown to each size.
    const latTenant = await tenant("latency");
    const latency: {
      chunks: number;
      coldMs: number;
      cacheRssMb: number;
      p50Ms: number;
      p95Ms: number;
      meanMs: number;
      queries: number;
    }[] = [];
    const synth: unknown[] = [];
    for (const size of o.sizes) {
      log(`growing the latency company to ${size} chunks`);
      synth.push({
        target: size,
        ...(await child(db.url, {
          cmd: "synth",
          companyId: latTenant.companyId,
          collectionId: latTenant.collectionId,
          target: size,
          docsPerFile: 50,
        })),
      });
      await sqlc`VACUUM ANALYZE knowledge_chunks`;
      const [{ n }] =
        (await sqlc`SELECT count(*)::int AS n FROM knowledge_chunks WHERE company_id = ${latTenant.companyId}`) as unknown as [
          { n: number },
        ];
      // The first search loads the company's chunks into the process's cache: its RSS growth is the cache's memory.
      const rssBeforeKb = rssKb(server.pid);
      let t = performance.now();
      await searchHttp(latTenant, cran.queries[0]!.text, 10);
      const coldMs = performance.now() - t;
      const cacheRssMb = (rssKb(server.pid) - rssBeforeKb) / 1024;
      const times: number[] = [];
      for (let i = 0; i < o.latencyQueries; i++) {
        t = performance.now();
        await searchHttp(latTenant, cran.queries[i % cran.queries.length]!.text, 10);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      latency.push({
        chunks: n,
        coldMs,
        cacheRssMb,
        p50Ms: pct(times, 50),
        p95Ms: pct(times, 95),
        meanMs: times.reduce((a, b) => a + b, 0) / times.length,
        queries: times.length,
      });
      log(
        `${n} chunks: p50 ${pct(times, 50).toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms (first query, cache load: ${coldMs.toFixed(0)} ms, RSS +${cacheRssMb.toFixed(1)} MiB)`,
      );
    }
    const biggest = latency.at(-1);
    // Dense search never uses pgvector; noted so a run on a server that has it is read as such.
    const [pgvector] =
      (await sqlc`SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'vector'`) as unknown as [
        { n: number },
      ];
    const parserPresent = fs.existsSync(path.join(ROOT, "lib/knowledge/parse/index.ts"));
    type Throughput = {
      files: number;
      mb: number;
      chunks: number;
      seconds: number;
      docsPerS: number;
      mbPerS: number;
      parseShare: number;
    };
    let parsers: { pdf: Throughput; docx: Throughput } | string =
      "skipped: lib/knowledge/parse (the parsers) is not on this branch; chunk + embed + index only";
    if (parserPresent) {
      log("indexing PDF and DOCX files (parse + chunk + embed + index)");
      const t = await tenant("files");
      parsers = await child(db.url, {
        cmd: "parse-throughput",
        companyId: t.companyId,
        collectionId: t.collectionId,
        files: 10,
        docsPerFile: 50,
      });
    }

    const record = {
      name: "knowledge",
      startedAt: new Date(started).toISOString(),
      machine: { node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? "?" },
      database: { mode: db.mode, where: db.where, pgvectorAvailable: pgvector.n > 0, pgvectorUsed: false },
      cranfield: {
        docs: cran.docs.length,
        queries: cran.queries.length,
        chunks: cranIndex.chunks,
        ours,
        peer: { name: "MiniSearch 7.2 (one text field: title + abstract, as ours indexes it)", ...peerSingle },
        peerTitleField: { name: "MiniSearch 7.2 (title and abstract as two fields)", ...peerFields },
        ratio,
        goal: `ours >= ${TARGET_RATIO} x peer nDCG@10`,
        pass: ratio >= TARGET_RATIO,
        ablations,
        chunkSweep,
      },
      latency: {
        results: latency,
        goal: `p95 < ${TARGET_P95_MS} ms at 100,000 chunks, no pgvector`,
        pass: !!biggest && biggest.chunks >= 100_000 && biggest.p95Ms < TARGET_P95_MS,
      },
      indexing: {
        cranfield: cranIndex,
        synthetic: synth,
        parsers,
      },
    };
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    fs.writeFileSync(path.join(RESULTS_DIR, "knowledge-latest.json"), JSON.stringify(record, null, 2) + "\n");

    if (o.print) {
      const q = (name: string, x: Quality) => [name, x.ndcg10, x.ndcg10Linear, x.recall10];
      const out = process.stdout;
      out.write(
        `\nRetrieval quality, Cranfield (${cran.docs.length} docs, ${cran.queries.length} queries, ${cranIndex.chunks} chunks)\n\n`,
      );
      out.write(
        renderTable(
          ["system", "nDCG@10 (2^(5-g)-1)", "nDCG@10 (5-g)", "recall@10"],
          [
            q("ours (search endpoint)", ours),
            q("MiniSearch 7.2, one field", peerSingle.quality),
            q("MiniSearch 7.2, title + text fields", peerFields.quality),
            ...Object.entries(ablations).map(([v, x]) => q(`  ablation: ${v}`, x)),
          ].map((r) => r.map((c) => (typeof c === "number" ? fmt(c, 4) : c))),
        ) + "\n",
      );
      out.write(
        `ours / peer nDCG@10 = ${ratio.toFixed(3)} (goal >= ${TARGET_RATIO}): ${ratio >= TARGET_RATIO ? "PASS" : "MISS"}\n`,
      );
      if (chunkSweep) {
        out.write("\nChunk size sweep (max/overlap tokens)\n\n");
        out.write(
          renderTable(
            ["size", "chunks", "hybrid nDCG@10", "lexical nDCG@10", "hybrid recall@10"],
            Object.entries(chunkSweep).map(([k, v]) => [
              k,
              String(v.chunks),
              fmt(v.hybrid.ndcg10, 4),
              fmt(v.lexical.ndcg10, 4),
              fmt(v.hybrid.recall10, 4),
            ]),
          ) + "\n",
        );
      }
      out.write("\nSearch latency through the endpoint, one company, sequential queries\n\n");
      out.write(
        renderTable(
          ["chunks", "first query ms", "p50 ms", "p95 ms", "mean ms"],
          latency.map((l) => [String(l.chunks), l.coldMs, l.p50Ms, l.p95Ms, l.meanMs]),
        ) + "\n",
      );
      out.write(`p95 at 100,000 chunks < ${TARGET_P95_MS} ms: ${record.latency.pass ? "PASS" : "MISS"}\n`);
      out.write(
        `\nIndexing (chunk + embed + index): Cranfield ${fmt(cranIndex.docsPerS, 0)} docs/s, ${fmt(cranIndex.mbPerS, 2)} MB/s\n`,
      );
      if (typeof parsers === "string") out.write(`PDF/DOCX: ${parsers}\n`);
      else {
        out.write(
          "\nIndexing files (parse in its capped child process + chunk + embed + index), 10 files of 50 Cranfield abstracts (one page each in a PDF), sequential\n\n",
        );
        out.write(
          renderTable(
            ["kind", "files", "MB", "chunks", "docs/s", "MB/s", "parse share"],
            (["pdf", "docx"] as const).map((k) => {
              const x = parsers[k];
              return [
                k,
                String(x.files),
                x.mb,
                String(x.chunks),
                x.docsPerS,
                x.mbPerS,
                `${Math.round(x.parseShare * 100)} %`,
              ];
            }),
          ) + "\n",
        );
      }
    }
    return { valid: true };
  } finally {
    await server?.stop().catch(() => {});
    build?.cleanup();
    await sqlc?.end({ timeout: 5 }).catch(() => {});
    await db?.cleanup().catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runKnowledgeBench({ chunkSweep: process.argv.includes("--chunk-sweep") })
    .then((r) => process.exit(r.valid ? 0 : 1))
    .catch((err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    });
}
