import { readFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { ledgerEntries } from "@/db/schema";
import { sseData, useGateway } from "../support/gateway";

/**
 * The server-side tool loop over real HTTP (CONTRACT 6 and 7): company tools run in the Python
 * sandbox during runs, on the `local` models and on a fake upstream that keeps calling tools.
 */
const TOOL_CPU_OT_PER_S = 10;

const gw = useGateway({
  // Always calls the first tool offered (until tool_choice "none"): the step cap's test.
  fake: { toolCall: (body) => ({ name: body.tools[0].function.name, arguments: { a: 1, b: 2 } }) },
  env: { TOOL_MAX_STEPS: "3", TOOL_CPU_OT_PER_S: String(TOOL_CPU_OT_PER_S), SANDBOX_TIMEOUT_MS: "2000" },
});

const NUMBERS = { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] };

async function tool(key: string, name: string, python_code: string, json_schema: Record<string, unknown> = NUMBERS) {
  const res = await gw.call(key, "POST", "/v1/tools", {
    name,
    description: `the ${name} tool`,
    json_schema,
    python_code,
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json as { id: string; name: string };
}

async function thread(key: string, content: string) {
  const res = await gw.call(key, "POST", "/v1/threads", { messages: [{ role: "user", content }] });
  expect(res.status).toBe(201);
  return res.json.id as string;
}

const run = (key: string, threadId: string, body: Record<string, unknown>) =>
  gw.call(key, "POST", `/v1/threads/${threadId}/runs`, { model: "local-mini", ...body });
const steps = async (key: string, threadId: string, runId: string) =>
  (await gw.call(key, "GET", `/v1/threads/${threadId}/runs/${runId}/steps?limit=100`)).json.data as {
    type: string;
    detail: Record<string, unknown>;
  }[];

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m![1]);
}

describe("the tool loop", () => {
  it("a local-model run whose forced tool add(a, b) returns the sum Python computed", async () => {
    const { key } = await gw.tenant();
    await tool(key, "add", "def add(a, b):\n    return a + b\n");
    const threadId = await thread(key, 'Please add these: {"a": 2, "b": 40}');
    const res = await run(key, threadId, { tool_choice: { type: "function", function: { name: "add" } } });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.tool_calls).toEqual([{ name: "add", args: { a: 2, b: 40 }, result: 42 }]);
    expect(res.json.content).toContain("42");
    const all = await steps(key, threadId, res.json.id);
    expect(all.map((s) => s.type)).toEqual(["history", "model_call", "tool_call", "model_call"]);
    const step = all.find((s) => s.type === "tool_call")!;
    expect(step.detail).toMatchObject({
      name: "add",
      args: { a: 2, b: 40 },
      result: 42,
      ok: true,
      cpu_ms: expect.any(Number),
      wall_ms: expect.any(Number),
    });
    // The thread keeps the question and the final answer only.
    const msgs = await gw.call(key, "GET", `/v1/threads/${threadId}/messages?order=asc`);
    expect(msgs.json.data.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
  });

  it("`call <name>` with and without a JSON object (CONTRACT 7); invalid arguments are a result, not a failure", async () => {
    const { key } = await gw.tenant();
    await tool(key, "add", "def add(a, b):\n    return a + b\n");
    const profile = (
      await gw.call(key, "POST", "/v1/profiles", { name: "calc", allowed_tool_names: ["add"], use_tools: true })
    ).json;
    const withJson = await thread(key, 'call add {"a": 5, "b": 6}');
    const a = await run(key, withJson, { profile_ids: [profile.id] });
    expect(a.json.tool_calls).toEqual([{ name: "add", args: { a: 5, b: 6 }, result: 11 }]);
    const bare = await thread(key, "call add");
    const b = await run(key, bare, { profile_ids: [profile.id] });
    expect(b.status).toBe(200);
    expect(b.json.status).toBe("completed");
    expect(b.json.tool_calls).toHaveLength(1);
    expect(b.json.tool_calls[0].args).toEqual({});
    expect(b.json.tool_calls[0].result.error).toMatch(/invalid arguments/);
  });

  it("arguments nested too deep for JSON.stringify are a result, not a failure", async () => {
    const { key } = await gw.tenant();
    await tool(key, "add", "def add(a, b):\n    return a + b\n");
    const deep = '{"a": 1, "b": ' + '{"x":'.repeat(6_000) + "1" + "}".repeat(6_000) + "}";
    const forced = { model: "local-chat-latest", tool_choice: { type: "function", function: { name: "add" } } };
    const res = await run(key, await thread(key, `call add ${deep}`), forced);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.status).toBe("completed");
    expect(res.json.tool_calls[0].result.error).toMatch(/deeper than 64 levels/);
  });

  it("use_tools: false and tool_choice: none suppress calls", async () => {
    const { key } = await gw.tenant();
    await tool(key, "add", "def add(a, b):\n    return a + b\n");
    const profile = (
      await gw.call(key, "POST", "/v1/profiles", { name: "calc", allowed_tool_names: ["add"], use_tools: true })
    ).json;
    const threadId = await thread(key, 'call add {"a": 1, "b": 1}');
    for (const body of [{ use_tools: false }, { tool_choice: "none" }]) {
      const res = await run(key, threadId, { profile_ids: [profile.id], ...body });
      expect(res.status).toBe(200);
      expect(res.json.tool_calls).toEqual([]);
      const model = (await steps(key, threadId, res.json.id)).find((s) => s.type === "model_call")!;
      expect(model.detail.tools_offered).toBeUndefined();
    }
    // A forced tool that is not an active tool of the company, or `required` with nothing offered: 400 naming tool_choice.
    const forced = await run(key, threadId, { tool_choice: { type: "function", function: { name: "nope" } } });
    expect(forced.status).toBe(400);
    expect(forced.json.error.param).toBe("tool_choice");
    const required = await run(key, threadId, { tool_choice: "required", use_tools: false });
    expect(required.status).toBe(400);
    expect(required.json.error.param).toBe("tool_choice");
  });

  it("a tool that raises, one that loops forever, one that allocates 3 GB and one that returns a set: the run goes on, the server's RSS stays", async () => {
    const { key } = await gw.tenant();
    const tools = {
      boom: "def boom():\n    raise ValueError('no luck')\n",
      spin: "def spin():\n    while True:\n        pass\n",
      hog: "def hog():\n    x = bytearray(3 * 1024 * 1024 * 1024)\n    return len(x)\n",
      aset: "def aset():\n    return {1, 2, 3}\n",
    };
    for (const [name, code] of Object.entries(tools)) await tool(key, name, code, { type: "object", properties: {} });
    const before = rssKb(gw.server.pid);
    for (const name of Object.keys(tools)) {
      const threadId = await thread(key, `run ${name}`);
      const res = await run(key, threadId, { tool_choice: { type: "function", function: { name } } });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.status).toBe("completed");
      expect(res.json.tool_calls).toHaveLength(1);
      expect(res.json.tool_calls[0].result).toEqual({ error: expect.any(String) });
      expect(res.json.content).toContain("error");
    }
    expect(rssKb(gw.server.pid) - before).toBeLessThan(50 * 1024);
  });

  it("stops at the step cap: after TOOL_MAX_STEPS rounds the last model call gets tool_choice none", async () => {
    const { key } = await gw.tenant();
    await tool(key, "add", "def add(a, b):\n    return a + b\n");
    const profile = (
      await gw.call(key, "POST", "/v1/profiles", { name: "loop", allowed_tool_names: ["add"], use_tools: true })
    ).json;
    const threadId = await thread(key, "keep adding");
    const res = await run(key, threadId, { model: "gpt-4o-mini", profile_ids: [profile.id] });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.tool_calls).toHaveLength(3);
    expect(res.json.tool_calls.every((c: { result: unknown }) => c.result === 3)).toBe(true);
    expect(gw.fake.requests).toHaveLength(4);
    expect(gw.fake.requests.at(-1)!.body.tool_choice).toBe("none");
    expect(gw.fake.requests.at(-1)!.body.messages.filter((m: { role: string }) => m.role === "tool")).toHaveLength(3);
    // Usage adds up over the four calls.
    const sum = gw.fake.requests.reduce((n, r) => n + r.usage!.prompt, 0);
    expect(res.json.usage.prompt_tokens).toBe(sum);
  });

  it("a streaming run sends a {tool_call} frame per executed call, then the answer", async () => {
    const { key } = await gw.tenant();
    await tool(key, "add", "def add(a, b):\n    return a + b\n");
    const threadId = await thread(key, '{"a": 20, "b": 22}');
    const res = await fetch(`${gw.server.url}/v1/threads/${threadId}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "local-mini",
        stream: true,
        tool_choice: { type: "function", function: { name: "add" } },
      }),
    });
    expect(res.status).toBe(200);
    const frames = await sseData(res);
    const toolFrame = frames.find((f) => typeof f === "object" && "tool_call" in f);
    expect(toolFrame).toEqual({ tool_call: { name: "add", args: { a: 20, b: 22 }, result: 42 } });
    const text = frames
      .filter((f) => typeof f === "object" && "delta" in f)
      .map((f) => f.delta)
      .join("");
    expect(text).toContain("42");
    expect(frames.indexOf(toolFrame)).toBeLessThan(
      frames.findIndex((f) => typeof f === "object" && "delta" in f && f.delta.includes("42")),
    );
    expect(frames.at(-1)).toBe("[DONE]");
  });

  it("bills tool CPU time at TOOL_CPU_OT_PER_S in the run's ledger entry", async () => {
    const { key } = await gw.tenant();
    await tool(key, "busy", "def busy():\n    n = 0\n    for i in range(3_000_000):\n        n += i\n    return n\n", {
      type: "object",
      properties: {},
    });
    const threadId = await thread(key, "be busy");
    const res = await run(key, threadId, { tool_choice: { type: "function", function: { name: "busy" } } });
    expect(res.status).toBe(200);
    const [entry] = await db.select().from(ledgerEntries).where(eq(ledgerEntries.referenceId, res.json.id));
    const cpuMs = (entry!.metadata as { tool_cpu_ms: number }).tool_cpu_ms;
    expect(cpuMs).toBeGreaterThan(10);
    expect(-entry!.amountMicro).toBeGreaterThanOrEqual(Math.round((cpuMs / 1000) * TOOL_CPU_OT_PER_S * 1e6));
  });

  it("chat completions do not offer profiles' server-side tools (CONTRACT 5.9)", async () => {
    const { key } = await gw.tenant();
    await tool(key, "add", "def add(a, b):\n    return a + b\n");
    await gw.call(key, "POST", "/v1/profiles", {
      name: "default",
      allowed_tool_names: ["add"],
      use_tools: true,
      is_default: true,
    });
    const res = await gw.call(key, "POST", "/v1/chat/completions", {
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: 'call add {"a":1,"b":2}' }],
    });
    expect(res.status).toBe(200);
    expect(gw.fake.requests[0]!.body.tools).toBeUndefined();
    expect(res.json.choices[0].message.tool_calls).toBeUndefined();
  });
});
