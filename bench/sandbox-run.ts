/**
 * "A run with one tool call against the same run without tools", through the real
 * server over HTTP: `POST /v1/threads/{id}/runs` on the fake upstream, once with the company tool
 * `add(a, b)` forced (`tool_choice: {type: "function", function: {name: "add"}}`: the fake answers
 * with a call of it, the gateway runs it in the Python sandbox and makes the second model call with
 * the result) and once without tools. 1 connection, sequential requests, the two kinds measured
 * alternately `repeat` times; each run on a thread of its own (one user message), so both kinds
 * send the same history. The difference of the p50s is what the tool call adds: the sandbox call
 * plus the second model round trip (and the run's extra steps). Called by bench/sandbox.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FAKE_REPLY, MODEL_SLUG, UPSTREAM_KEY, startUpstream } from "./completions";
import { createCompany, createKey, admin } from "./lib/admin";
import { provisionDatabase, useDatabase, type BenchDatabase } from "./lib/db";
import { waitForQuiet } from "./lib/measure";
import { appEnv, startNext, waitForBuild, ROOT } from "./lib/server";

export interface ToolRunOptions {
  /** Runs of each kind per repetition. */
  requests: number;
  repeat: number;
  warmup: number;
  /** A database to use as is (migrated, never dropped); else a fresh one on the local server or embedded. */
  databaseUrl?: string;
  quietWaitS: number;
  log: (m: string) => void;
}

export interface ToolRunKind {
  kind: "no tools" | "forced tool add(a, b)";
  /** p50 of each repetition, ms. */
  p50Ms: number[];
  p99Ms: number[];
  runs: number;
}

export interface ToolRunResult {
  noTools: ToolRunKind;
  withTool: ToolRunKind;
  /** Median over repetitions of (tool p50 − no-tools p50). */
  addedP50Ms: number;
  /** From the tool runs' own steps (GET …/steps), medians: the tool_call step and the sandbox's wall time. */
  toolStepMs: number | null;
  sandboxWallMs: number | null;
  modelCallMs: number | null;
  loadavg: number[];
  quietBefore: { waitedMs: number; busy: number | null }[];
  buildId: string | null;
  errors: string[];
}

const ADD = "def add(a, b):\n    return a + b\n";
const SCHEMA = { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] };
const FORCED = { type: "function", function: { name: "add" } };

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const median = (xs: number[]) => pct(xs, 50);

export async function runToolRunBench(o: ToolRunOptions): Promise<ToolRunResult> {
  const errors: string[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  const result: ToolRunResult = {
    noTools: { kind: "no tools", p50Ms: [], p99Ms: [], runs: 0 },
    withTool: { kind: "forced tool add(a, b)", p50Ms: [], p99Ms: [], runs: 0 },
    addedP50Ms: Number.NaN,
    toolStepMs: null,
    sandboxWallMs: null,
    modelCallMs: null,
    loadavg: [],
    quietBefore: [],
    buildId: null,
    errors,
  };
  try {
    await waitForBuild(ROOT, 60_000);
    const idFile = path.join(ROOT, ".next/BUILD_ID");
    result.buildId = fs.existsSync(idFile) ? fs.readFileSync(idFile, "utf8").trim() : null;
    const up = await startUpstream();
    cleanups.push(() => (up.rss.stop(), up.service.stop()));
    let db: BenchDatabase;
    if (o.databaseUrl) db = await useDatabase(o.databaseUrl);
    else {
      db = await provisionDatabase({});
      cleanups.push(() => db.cleanup());
    }
    const company = await createCompany(db.url, "Bench sandbox tool run");
    await admin(db.url, [
      "credits",
      "grant",
      "--company",
      company,
      "--amount",
      "1000000",
      "--note",
      "sandbox tool-run bench",
    ]);
    const key = await createKey(db.url, company);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-bench-data-"));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const server = await startNext({
      env: { ...appEnv(db.url, dataDir), OPENAI_BASE_URL: up.openaiBase, OPENAI_API_KEY: UPSTREAM_KEY },
    });
    cleanups.push(() => server.stop());
    o.log(`tool run: server pid ${server.pid} on ${server.baseUrl}, fake upstream ${up.url}`);
    const headers = { "content-type": "application/json", authorization: `Bearer ${key.secret}` };
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${server.baseUrl}${p}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
    };
    const tool = await call("POST", "/v1/tools", {
      name: "add",
      description: "adds two numbers",
      json_schema: SCHEMA,
      python_code: ADD,
    });
    if (tool.status !== 201 && tool.status !== 200)
      throw new Error(`POST /v1/tools: HTTP ${tool.status} ${tool.text.slice(0, 300)}`);

    const total = o.warmup * 2 + o.requests * 2 * o.repeat;
    const threads: string[] = [];
    for (let i = 0; i < total; i++) {
      const t = await call("POST", "/v1/threads", {
        messages: [{ role: "user", content: `Please add 2 and 3 (${i}).` }],
      });
      if (t.status !== 201) throw new Error(`POST /v1/threads: HTTP ${t.status} ${t.text.slice(0, 300)}`);
      threads.push(String(t.json().id));
    }
    let next = 0;
    let unexpected = 0;
    const toolRunIds: { thread: string; run: string }[] = [];
    const oneRun = async (withTool: boolean) => {
      const thread = threads[next++]!;
      const body = withTool ? { model: MODEL_SLUG, tool_choice: FORCED } : { model: MODEL_SLUG };
      const t0 = performance.now();
      const r = await call("POST", `/v1/threads/${thread}/runs`, body);
      const ms = performance.now() - t0;
      if (r.status !== 200)
        throw new Error(`run${withTool ? " with the tool" : ""}: HTTP ${r.status} ${r.text.slice(0, 400)}`);
      const j = r.json() as { status?: string; content?: string; tool_calls?: unknown[]; id?: string };
      const expected = withTool ? [{ name: "add", args: { a: 2, b: 3 }, result: 5 }] : [];
      if (
        j.status !== "completed" ||
        !j.content?.includes(FAKE_REPLY) ||
        JSON.stringify(j.tool_calls ?? []) !== JSON.stringify(expected)
      ) {
        unexpected += 1;
        if (unexpected <= 3)
          errors.push(`run${withTool ? " with the tool" : ""}: unexpected answer ${r.text.slice(0, 400)}`);
      }
      // Every 5th tool run's steps are read after the measurement (where the added time goes).
      if (withTool && j.id && next % 5 === 0) toolRunIds.push({ thread, run: j.id });
      return ms;
    };
    // Warm-up: the first tool call makes the sandbox's snapshot (or takes the cached one) and boots a process.
    for (let i = 0; i < o.warmup; i++) {
      await oneRun(true);
      await oneRun(false);
    }
    toolRunIds.length = 0;
    await new Promise((r) => setTimeout(r, 3000));
    for (let rep = 0; rep < o.repeat; rep++) {
      result.quietBefore.push(
        o.quietWaitS > 0 ? await waitForQuiet(0.3, o.quietWaitS * 1000) : { waitedMs: 0, busy: null },
      );
      result.loadavg = os.loadavg();
      for (const kind of [false, true]) {
        const times: number[] = [];
        for (let i = 0; i < o.requests; i++) times.push(await oneRun(kind));
        const row = kind ? result.withTool : result.noTools;
        row.p50Ms.push(pct(times, 50));
        row.p99Ms.push(pct(times, 99));
        row.runs += times.length;
        o.log(
          `tool run rep ${rep + 1}: ${row.kind} p50 ${pct(times, 50).toFixed(2)} ms, p99 ${pct(times, 99).toFixed(2)} ms`,
        );
      }
    }
    result.addedP50Ms = median(result.withTool.p50Ms.map((p, i) => p - result.noTools.p50Ms[i]!));
    // Where the added time goes: the tool runs' own steps (a sample of the last ones).
    const toolSteps: number[] = [];
    const sandboxWall: number[] = [];
    const modelCalls: number[] = [];
    for (const { thread, run } of toolRunIds) {
      const s = await call("GET", `/v1/threads/${thread}/runs/${run}/steps?limit=100`);
      const data = (s.json().data ?? []) as { type: string; duration_ms?: number; detail?: { wall_ms?: number } }[];
      for (const step of data) {
        if (step.type === "tool_call") {
          if (typeof step.duration_ms === "number") toolSteps.push(step.duration_ms);
          if (typeof step.detail?.wall_ms === "number") sandboxWall.push(step.detail.wall_ms);
        }
        if (step.type === "model_call" && typeof step.duration_ms === "number") modelCalls.push(step.duration_ms);
      }
    }
    result.toolStepMs = toolSteps.length ? median(toolSteps) : null;
    result.sandboxWallMs = sandboxWall.length ? median(sandboxWall) : null;
    result.modelCallMs = modelCalls.length ? median(modelCalls) : null;
    if (unexpected > 3) errors.push(`${unexpected} unexpected answers in all`);
  } catch (err) {
    errors.push(`tool run: ${(err as Error).message}`);
  } finally {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
  }
  return result;
}
