/**
 * The body flood's long-run rows: requests whose text is one long unbroken run (one pre-token for
 * the tokenizer, whose BPE is quadratic in its length), each kind sent by `clients` clients in a
 * loop for `durationS` seconds while /api/health is probed every 20 ms in its own thread:
 *
 *   completion   POST /v1/chat/completions to local-chat-latest, a tool message of 250,000 "-"
 *   tool result  a run (local-mini) whose forced Python tool returns "a" * 1_000_000
 *   webhook      a trigger whose payload is 250,000 "a" (a local-mini agent is woken with it)
 *
 * Goal per row: /api/health p99 < 100 ms.
 */
import { admin } from "./lib/admin";

export const LONG_RUN_KINDS = ["completion", "tool result", "webhook"] as const;
type LongRunKind = (typeof LONG_RUN_KINDS)[number];

export interface LongRunRow {
  kind: LongRunKind;
  requests: number;
  statuses: Record<string, number>;
  probes: number;
  p99Ms: number;
  maxMs: number;
}

type Probe = { stop: () => Promise<[number, number, number][]> };

const json = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });

async function post(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; json: { id?: string } | null }> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    const text = await res.text();
    let parsed: { id?: string } | null = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      // a non-JSON answer: the status is what counts
    }
    return { status: res.status, json: parsed };
  } catch {
    return { status: 0, json: null };
  }
}

/** One request of each kind, ready to send again and again. */
async function prepare(
  base: string,
  databaseUrl: string,
  companyId: string,
  key: string,
): Promise<Record<LongRunKind, () => Promise<number>>> {
  const tool = await post(`${base}/v1/tools`, json(key), {
    name: "big",
    description: "returns a million a's",
    json_schema: { type: "object", properties: {} },
    python_code: 'def big():\n    return "a" * 1_000_000\n',
  });
  if (tool.status !== 201 && tool.status !== 200)
    throw new Error(`creating the tool: ${tool.status} ${JSON.stringify(tool.json)}`);
  const profile = await post(`${base}/v1/profiles`, json(key), { name: "Long-run agent", model_slug: "local-mini" });
  const agent = await admin(databaseUrl, [
    "agent",
    "create",
    "--company",
    companyId,
    "--profile",
    String(profile.json?.id),
    "--name",
    "Long-run agent",
    "--topics",
    "long.*",
  ]);
  const hook = await admin(databaseUrl, [
    "webhook",
    "create",
    "--company",
    companyId,
    "--agent",
    String(agent.agent_id),
  ]);
  const dashes = "-".repeat(250_000);
  const completion = {
    model: "local-chat-latest",
    messages: [
      { role: "user", content: "run the tool" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "call_1", content: dashes },
    ],
  };
  const payload = { event_topic: "long.run", payload: { text: "a".repeat(250_000) } };
  return {
    completion: async () => (await post(`${base}/v1/chat/completions`, json(key), completion)).status,
    "tool result": async () => {
      const thread = await post(`${base}/v1/threads`, json(key), { messages: [{ role: "user", content: "run big" }] });
      if (thread.status !== 201) return thread.status;
      const run = await post(`${base}/v1/threads/${thread.json?.id}/runs`, json(key), {
        model: "local-mini",
        tool_choice: { type: "function", function: { name: "big" } },
      });
      return run.status;
    },
    webhook: async () =>
      (await post(`${base}${String(hook.url)}`, { "content-type": "application/json" }, payload)).status,
  };
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Each kind in turn, with its own probe; the server and the company are the flood's. */
export async function runLongRunRows(args: {
  base: string;
  databaseUrl: string;
  companyId: string;
  key: string;
  durationS: number;
  clients: number;
  startProbe: () => Probe;
  log: (m: string) => void;
}): Promise<LongRunRow[]> {
  const send = await prepare(args.base, args.databaseUrl, args.companyId, args.key);
  const rows: LongRunRow[] = [];
  for (const kind of LONG_RUN_KINDS) {
    await send[kind](); // warm: the route loaded, the tokenizer and the sandbox started
    const statuses: Record<string, number> = {};
    const probe = args.startProbe();
    const endAt = Date.now() + args.durationS * 1000;
    await Promise.all(
      Array.from({ length: args.clients }, async () => {
        while (Date.now() < endAt) {
          const status = String((await send[kind]()) || "error");
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    );
    const samples = await probe.stop();
    const ms = samples.map((s) => s[1]).sort((a, b) => a - b);
    const row = {
      kind,
      requests: Object.values(statuses).reduce((a, b) => a + b, 0),
      statuses,
      probes: ms.length,
      p99Ms: percentile(ms, 0.99),
      maxMs: ms.at(-1) ?? Number.NaN,
    };
    args.log(
      `long run, ${kind}: ${row.requests} requests ${JSON.stringify(statuses)}, /api/health p99 ${row.p99Ms.toFixed(1)} ms, max ${row.maxMs.toFixed(1)} ms`,
    );
    rows.push(row);
  }
  return rows;
}
