/**
 * Front-door rows of the chat-completions benchmark (bench/completions.ts calls this while its
 * `ours` server is up): `POST /v1/responses` and `POST /v1/messages` carrying the chat-completions
 * rows' one user message, against chat completions on the same server, model and upstream.
 *
 *   json @32c      req/s of each door, measured in turns with chat completions `repeat` times, the
 *                  order rotated every repetition; a goal takes the median of the per-repetition
 *                  ratios (unrelated load on a shared machine comes and goes within a minute)
 *   json @1c       p50 over `latencyRequests` sequential calls of each, back to back per repetition;
 *                  the goal is the median of (door p50 − completions p50)
 *
 * A separate company pays for these rows: its ledger must hold exactly one entry per 2xx answer
 * (plus at most the calls in flight when a timed row stopped).
 */
import postgres from "postgres";
import type { Mode, Row, Target, Verdict } from "./lib/completions-shapes";
import type { LoadOptions } from "./lib/load";
import { waitForQuiet } from "./lib/measure";
import { fmt, renderTable } from "./lib/table";
import { median } from "./lib/spread";

export const FRONT_DOOR_TARGETS = { throughputPct: 90, addedP50DeltaMs: 0.5 } as const;

type Door = "completions" | "responses" | "messages";
const DOORS: Door[] = ["completions", "responses", "messages"];

export interface FrontDoorsContext {
  ours: Target;
  /** Header sets of the front-door company's keys, rotated per request. */
  keys: Record<string, string>[];
  companyId: string;
  databaseUrl: string;
  model: string;
  /** The user message of the chat-completions rows, and the fake upstream's fixed answer to it. */
  prompt: string;
  reply: string;
  usage: { prompt: number; completion: number };
  durationS: number;
  warmupS: number;
  highC: number;
  lowC: number;
  latencyRequests: number;
  repeat: number;
  quietWaitS: number;
  measure(t: Target, mode: Mode, connections: number, durationS: number, spec: LoadOptions): Promise<Row>;
  log(message: string): void;
}

export interface FrontDoorRow extends Row {
  door: Door;
  case: "throughput" | "latency";
  repetition: number;
}

export interface FrontDoorsResult {
  /** Why the rows are missing (a door is not in this build), else null. */
  skipped: string | null;
  rows: FrontDoorRow[];
  invalid: string[];
  ledger: { entries: number; answered: number; allowance: number } | null;
}

const requests: Record<Door, (ctx: FrontDoorsContext) => { path: string; body: unknown }> = {
  completions: (ctx) => ({
    path: "/v1/chat/completions",
    body: { model: ctx.model, messages: [{ role: "user", content: ctx.prompt }] },
  }),
  responses: (ctx) => ({ path: "/v1/responses", body: { model: ctx.model, input: ctx.prompt } }),
  messages: (ctx) => ({
    path: "/v1/messages",
    body: { model: ctx.model, max_tokens: 1024, messages: [{ role: "user", content: ctx.prompt }] },
  }),
};

interface Part {
  type?: string;
  text?: string;
  content?: Part[];
}
interface Answer {
  choices?: { message?: { content?: string } }[];
  output?: Part[];
  content?: Part[];
  usage?: Record<string, number>;
}
const texts = (parts: Part[] | undefined) => (parts ?? []).map((p) => p.text ?? "").join("");

/** The answer's text and token usage, in each door's own shape. */
const readAnswer: Record<Door, (b: Answer) => { text?: string; input?: number; output?: number }> = {
  completions: (b) => ({
    text: b.choices?.[0]?.message?.content,
    input: b.usage?.prompt_tokens,
    output: b.usage?.completion_tokens,
  }),
  responses: (b) => ({
    text: texts((b.output ?? []).flatMap((item) => (item.type === "message" ? (item.content ?? []) : []))),
    input: b.usage?.input_tokens,
    output: b.usage?.output_tokens,
  }),
  messages: (b) => ({ text: texts(b.content), input: b.usage?.input_tokens, output: b.usage?.output_tokens }),
};

/** One call through `door`, checked in full; a 404/405 means the door is not in this build. */
async function checkDoor(ctx: FrontDoorsContext, door: Door): Promise<string | null> {
  const { path, body } = requests[door](ctx);
  const res = await fetch(`${ctx.ours.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...ctx.keys[0] },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status === 404 || res.status === 405) return `POST ${path} answers ${res.status}: not in this build`;
  const answer = res.status === 200 ? readAnswer[door](JSON.parse(text) as Answer) : null;
  if (
    !answer ||
    answer.text !== ctx.reply ||
    answer.input !== ctx.usage.prompt ||
    answer.output !== ctx.usage.completion
  )
    throw new Error(`${door}: unexpected answer HTTP ${res.status} ${text.slice(0, 600)}`);
  return null;
}

export async function runFrontDoorRows(ctx: FrontDoorsContext): Promise<FrontDoorsResult> {
  const out: FrontDoorsResult = { skipped: null, rows: [], invalid: [], ledger: null };
  let answered = 0;
  let allowance = 0;
  for (const door of DOORS) {
    out.skipped = await checkDoor(ctx, door);
    answered++;
    if (out.skipped) {
      ctx.log(`front doors: ${out.skipped}; no front-door rows`);
      return out;
    }
  }
  const spec = (door: Door, connections: number, durationS: number, amount?: number): LoadOptions => {
    const { path, body } = requests[door](ctx);
    return {
      url: `${ctx.ours.baseUrl}${path}`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      rotateHeaders: ctx.keys,
      connections,
      durationS,
      pipelining: 1,
      amount,
    };
  };
  const measure = async (door: Door, rowCase: FrontDoorRow["case"], rep: number, c: number, amount?: number) => {
    const label = `${door} ${ctx.model}${rep ? "" : " (warm-up)"}`;
    const durationS = rep ? ctx.durationS : ctx.warmupS;
    const r = await ctx.measure(
      { ...ctx.ours, label },
      "json",
      c,
      amount ? 60 : durationS,
      spec(door, c, durationS, amount),
    );
    answered += r.ok2xx;
    if (!amount) allowance += c;
    if (r.non2xx || r.errors)
      out.invalid.push(
        `${label} @${c}c rep ${rep}: ${r.non2xx} non-2xx ${JSON.stringify(r.statusCodes)}, ${r.errors} errors`,
      );
    if (rep) out.rows.push({ ...r, door, case: rowCase, repetition: rep });
  };
  const quiet = async () => {
    if (ctx.quietWaitS > 0) await waitForQuiet(0.3, ctx.quietWaitS * 1000);
  };

  if (ctx.warmupS > 0) for (const door of DOORS) await measure(door, "throughput", 0, ctx.highC);
  for (let rep = 1; rep <= ctx.repeat; rep++) {
    await quiet();
    const order = DOORS.map((_, i) => DOORS[(i + rep - 1) % DOORS.length]!);
    ctx.log(
      `front doors: ${order.join(", ")} json @${ctx.highC}c, ${ctx.durationS} s each, repetition ${rep}/${ctx.repeat}`,
    );
    for (const door of order) await measure(door, "throughput", rep, ctx.highC);
  }
  for (let rep = 1; rep <= ctx.repeat; rep++) {
    await quiet();
    ctx.log(`front doors: ${ctx.latencyRequests} sequential calls each @${ctx.lowC}c, repetition ${rep}/${ctx.repeat}`);
    for (const door of DOORS) await measure(door, "latency", rep, ctx.lowC, ctx.latencyRequests);
  }
  out.ledger = { entries: await ledgerEntries(ctx), answered, allowance };
  const { entries } = out.ledger;
  if (entries < answered || entries > answered + allowance)
    out.invalid.push(
      `front doors ledger: ${entries} entries for ${answered} 2xx answers (+ up to ${allowance} in flight)`,
    );
  return out;
}

/** Every debit of the front-door company; waits for calls cut off at a row's end to settle. */
async function ledgerEntries(ctx: FrontDoorsContext): Promise<number> {
  await new Promise((r) => setTimeout(r, 2_000));
  const sql = postgres(ctx.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ n: string }[]>`
      select count(*)::text as n from ledger_entries where company_id = ${ctx.companyId} and kind <> 'grant'`;
    return Number(row!.n);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Per repetition: the door's figure against completions' in the same repetition. */
function perRepetition(
  res: FrontDoorsResult,
  door: Door,
  rowCase: FrontDoorRow["case"],
  f: (d: Row, c: Row) => number,
) {
  const reps = [...new Set(res.rows.map((r) => r.repetition))];
  return reps.flatMap((rep) => {
    const at = (d: Door) => res.rows.find((r) => r.door === d && r.case === rowCase && r.repetition === rep);
    const d = at(door);
    const c = at("completions");
    return d && c ? [f(d, c)] : [];
  });
}

export function frontDoorVerdicts(res: FrontDoorsResult): Verdict[] {
  if (res.skipped) return [];
  const spread = (xs: number[], digits: number) => `[${xs.map((x) => fmt(x, digits)).join(", ")}]`;
  const disturbed = res.rows.some((r) => (r.otherCores ?? 0) > 0.25);
  return (["responses", "messages"] as const).flatMap((door) => {
    const pct = perRepetition(res, door, "throughput", (d, c) => (d.rps / c.rps) * 100);
    const delta = perRepetition(res, door, "latency", (d, c) => d.p50 - c.p50);
    const p = median(pct);
    const a = median(delta);
    return [
      {
        name: `${door}: json req/s vs chat completions @${res.rows[0]?.connections ?? "-"}c, in turns ${spread(pct, 1)}`,
        value: p,
        unit: "% of completions",
        target: `>= ${FRONT_DOOR_TARGETS.throughputPct} %`,
        result: Number.isNaN(p) ? "n/a" : p >= FRONT_DOOR_TARGETS.throughputPct ? "PASS" : "MISS",
        disturbed,
      },
      {
        name: `${door}: p50 @1c minus chat completions' ${spread(delta, 3)}`,
        value: a,
        unit: "ms",
        target: `<= ${FRONT_DOOR_TARGETS.addedP50DeltaMs} ms`,
        result: Number.isNaN(a) ? "n/a" : a <= FRONT_DOOR_TARGETS.addedP50DeltaMs ? "PASS" : "MISS",
        disturbed,
      },
    ] satisfies Verdict[];
  });
}

export function frontDoorTable(res: FrontDoorsResult): string {
  if (res.skipped) return `Front-door rows: skipped (${res.skipped})`;
  const table = renderTable(
    [
      "front doors",
      "rep",
      "conns",
      "n",
      "req/s",
      "p50 ms",
      "p99 ms",
      "gw CPU ms/req",
      "gw writes/req",
      "db ms/req",
      "non-2xx",
    ],
    res.rows.map((r) => [
      r.label,
      String(r.repetition),
      String(r.connections),
      String(r.total),
      fmt(r.rps, 0),
      fmt(r.p50, 3),
      fmt(r.p99, 3),
      r.gatewayCpuMsPerReq === null ? "-" : fmt(r.gatewayCpuMsPerReq, 3),
      r.gatewayWritesPerReq === null ? "-" : fmt(r.gatewayWritesPerReq, 2),
      r.dbCpuMsPerReq === null ? "-" : fmt(r.dbCpuMsPerReq, 3),
      String(r.non2xx),
    ]),
  );
  const l = res.ledger;
  return l
    ? `${table}\nFront-door company's ledger: ${l.entries} debits for ${l.answered} 2xx answers (+ up to ${l.allowance} in flight)`
    : table;
}
