import { describe, expect, it } from "vitest";
import { useGateway } from "../support/gateway";

/**
 * Texts with one long unbroken run (one pre-token, quadratic BPE) sent as an attacker would:
 * /api/health keeps answering, and tool output too large for the context is cut before the next
 * call. Call caps are checked on a fake upstream asking for five calls per reply.
 */
const gw = useGateway({
  fake: {
    toolCall: (body) => ({ name: body.tools[0].function.name, arguments: { a: 1, b: 2 } }),
    toolCallsPerReply: 5,
  },
  env: { TOOL_MAX_STEPS: "8", TOOL_MAX_CALLS_PER_ROUND: "3", TOOL_MAX_CALLS_PER_RUN: "5", SANDBOX_TIMEOUT_MS: "10000" },
});

/** Gaps this long would mean the event loop was held (the attacks held it for seconds to minutes). */
const MAX_PROBE_MS = 1000;
const PROBE_EVERY_MS = 20;

/**
 * Runs the attack while GETting /api/health every PROBE_EVERY_MS; the longest a probe took to be
 * answered. The attack's own calls never wait on the probes.
 */
async function whileProbing<T>(attack: () => Promise<T>): Promise<{ result: T; maxMs: number; probes: number }> {
  let done = false;
  let maxMs = 0;
  let probes = 0;
  const probing = (async () => {
    while (!done) {
      const t = performance.now();
      const res = await fetch(`${gw.server.url}/api/health`);
      await res.arrayBuffer();
      maxMs = Math.max(maxMs, performance.now() - t);
      probes++;
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    }
  })();
  try {
    return { result: await attack(), maxMs, probes };
  } finally {
    done = true;
    await probing;
  }
}

/** A small call of each kind first, so route loading and the tokenizer's first load are not measured. */
async function warm(key: string) {
  const res = await gw.call(key, "POST", "/v1/chat/completions", {
    model: "local-chat-latest",
    messages: [{ role: "user", content: "hi" }],
  });
  expect(res.status).toBe(200);
  await fetch(`${gw.server.url}/api/health`);
}

async function tool(
  key: string,
  name: string,
  python_code: string,
  json_schema: Record<string, unknown> = { type: "object", properties: {} },
) {
  const res = await gw.call(key, "POST", "/v1/tools", {
    name,
    description: `the ${name} tool`,
    json_schema,
    python_code,
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
}

const steps = async (key: string, threadId: string, runId: string) =>
  (await gw.call(key, "GET", `/v1/threads/${threadId}/runs/${runId}/steps?limit=100`)).json.data as {
    type: string;
    detail: Record<string, unknown>;
  }[];

describe("long unbroken runs", () => {
  it("a local-model completion whose tool message is 250,000 dashes answers, and /api/health stays answered", async () => {
    const { key } = await gw.tenant();
    await warm(key);
    const body = {
      model: "local-chat-latest",
      max_tokens: 16,
      messages: [
        { role: "user", content: "run the tool" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "-".repeat(250_000) },
      ],
    };
    const { result, maxMs, probes } = await whileProbing(() => gw.call(key, "POST", "/v1/chat/completions", body));
    console.log(`250,000-dash tool message: /api/health max ${maxMs.toFixed(0)} ms over ${probes} probes`);
    expect(result.status, JSON.stringify(result.json)).toBe(200);
    expect(result.json.choices[0].message.content).toMatch(/^The tool returned "---/);
    expect(result.json.choices[0].finish_reason).toBe("length");
    expect(maxMs).toBeLessThan(MAX_PROBE_MS);
  }, 120_000);

  it("a run whose Python tool returns a million 'a's: the result is cut to fit the context with a marker, /api/health stays answered", async () => {
    const { key } = await gw.tenant();
    await warm(key);
    await tool(key, "big", 'def big():\n    return "a" * 1_000_000\n');
    const threadId = await gw.thread(key, [{ role: "user", content: "run big" }]);
    const { result, maxMs, probes } = await whileProbing(() =>
      gw.call(key, "POST", `/v1/threads/${threadId}/runs`, {
        model: "local-mini",
        tool_choice: { type: "function", function: { name: "big" } },
      }),
    );
    console.log(`1,000,000-char tool result: /api/health max ${maxMs.toFixed(0)} ms over ${probes} probes`);
    expect(result.status, JSON.stringify(result.json).slice(0, 500)).toBe(200);
    expect(result.json.status).toBe("completed");
    expect(result.json.content).toMatch(/^The tool returned .{0,8}aaaa/);
    const cut = (await steps(key, threadId, result.json.id)).find((s) => s.detail.results_truncated);
    const omitted = (cut!.detail.results_truncated as { omitted_chars: number }[]).map((c) => c.omitted_chars);
    // local-mini's window is 8192 tokens, a quarter kept for the answer: about 48,000 of the
    // 1,000,002 characters (8 per token) fit.
    expect(omitted).toHaveLength(1);
    expect(omitted[0]).toBeGreaterThan(900_000);
    expect(omitted[0]).toBeLessThan(980_000);
    expect(maxMs).toBeLessThan(MAX_PROBE_MS);
  }, 120_000);

  it("a completion of one 30 MiB run to a model with a million-token window is a 400, not a 500", async () => {
    const { key } = await gw.tenant();
    const res = await fetch(`${gw.server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: `{"model":"gpt-4.1","max_tokens":16,"messages":[{"role":"user","content":"${"a".repeat(30 * 1024 * 1024 - 200)}"}]}`,
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.error).toMatchObject({
      type: "invalid_request_error",
      code: "context_length_exceeded",
      param: "messages",
    });
    expect(gw.fake.requests).toHaveLength(0);
  }, 120_000);
});

describe("tool call caps", () => {
  it("executes at most TOOL_MAX_CALLS_PER_ROUND calls per reply and TOOL_MAX_CALLS_PER_RUN per run; the rest get an error result", async () => {
    const { key } = await gw.tenant();
    await tool(key, "add", "def add(a, b):\n    return a + b\n", {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
    });
    const profile = (
      await gw.call(key, "POST", "/v1/profiles", { name: "loop", allowed_tool_names: ["add"], use_tools: true })
    ).json;
    const threadId = await gw.thread(key, [{ role: "user", content: "keep adding" }]);
    const res = await gw.call(key, "POST", `/v1/threads/${threadId}/runs`, {
      model: "gpt-4o-mini",
      profile_ids: [profile.id],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    // Round 1: 3 of 5 run (per reply); round 2: 2 of 5 (the run's 5 reached); then a call offering no tools.
    expect(res.json.tool_calls).toHaveLength(5);
    expect(gw.fake.requests).toHaveLength(3);
    expect(gw.fake.requests.at(-1)!.body.tool_choice).toBe("none");
    const toolMessages = gw.fake.requests.at(-1)!.body.messages.filter((m: { role: string }) => m.role === "tool");
    expect(toolMessages).toHaveLength(10);
    const refused = toolMessages.filter((m: { content: string }) =>
      JSON.parse(m.content).error?.startsWith("not executed"),
    );
    expect(refused).toHaveLength(5);
    const capped = (await steps(key, threadId, res.json.id)).filter((s) => s.detail.call_cap_reached);
    expect(capped.map((s) => (s.detail.unexecuted as string[]).length)).toEqual([2, 3]);
  }, 120_000);
});
