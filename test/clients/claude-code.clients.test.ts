import { describe, expect, it } from "vitest";
import { useGateway } from "../support/gateway";
import { clientBinary, runClient } from "./agent-clients";

/**
 * Claude Code (the npm package of ./clients, unmodified) pointed at the gateway as its docs say:
 * ANTHROPIC_BASE_URL, an SDK key as ANTHROPIC_AUTH_TOKEN, a catalog slug as ANTHROPIC_MODEL, run
 * headless. Every call it makes is a Messages call billed once.
 */
const gw = useGateway();

async function claude(key: string, model: string, prompt: string, extra: string[] = []) {
  const run = await runClient(clientBinary("claude"), ["-p", prompt, "--output-format", "json", ...extra], {
    ANTHROPIC_BASE_URL: gw.server.url,
    ANTHROPIC_AUTH_TOKEN: key,
    ANTHROPIC_MODEL: model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
    ANTHROPIC_SMALL_FAST_MODEL: model,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    // Lets --dangerously-skip-permissions run as root in a throwaway directory.
    IS_SANDBOX: "1",
  });
  const last = run.stdout.trim().split("\n").at(-1) ?? "";
  let result: { type?: string; is_error?: boolean; result?: string; subtype?: string } = {};
  try {
    result = JSON.parse(last) as typeof result;
  } catch {
    throw new Error(`claude printed no JSON result (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
  return { ...run, result };
}

/** Ledger debits and `messages` threads of the company: one of each per call. */
async function billing(key: string) {
  const usage = await gw.call(key, "GET", "/v1/usage?limit=100");
  const threads = await gw.call(key, "GET", "/v1/threads?source=messages&limit=100");
  const debits = (usage.json.data as { kind: string; reference_id: string }[]).filter((e) => e.kind !== "grant");
  return { debits, threads: threads.json.data as { id: string }[] };
}

describe("Claude Code through /v1/messages", () => {
  it("answers a prompt on an offline model; each of its calls billed once", async () => {
    const { key } = await gw.tenant(100);
    const run = await claude(key, "local-chat-latest", "Reply with one short sentence about invoices.");
    expect(run.code, run.stderr).toBe(0);
    expect(run.result).toMatchObject({ type: "result", subtype: "success", is_error: false });
    expect(run.result.result).toMatch(/\S/);
    const { debits, threads } = await billing(key);
    expect(threads.length).toBeGreaterThanOrEqual(1);
    expect(debits).toHaveLength(threads.length);
    expect(new Set(debits.map((d) => d.reference_id)).size).toBe(debits.length);
  });

  it("runs a tool the model calls and answers with its result (tool_use → tool_result)", async () => {
    const { key } = await gw.tenant(100);
    const run = await claude(
      key,
      "local-chat-latest",
      'call Bash {"command": "echo gateway-$((6*7))", "description": "Print a marker"}',
      ["--dangerously-skip-permissions"],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.result.is_error).toBe(false);
    // The local model quotes the tool's result: the marker only the shell could have computed.
    expect(run.result.result).toContain("gateway-42");
    const { debits, threads } = await billing(key);
    expect(threads.length).toBeGreaterThanOrEqual(2);
    expect(debits).toHaveLength(threads.length);
  });

  it("reaches an upstream group through the provider's protocol, its tools translated", async () => {
    const { key } = await gw.tenant(100);
    const run = await claude(key, "gpt-4o-mini", "Say hello.");
    expect(run.code, run.stderr).toBe(0);
    expect(run.result.is_error).toBe(false);
    const calls = gw.fake.requests.filter((r) => r.path.endsWith("/chat/completions"));
    expect(calls.length).toBeGreaterThanOrEqual(1);
    // Claude Code offers its tools on the main call: they reach the OpenAI-protocol upstream as functions.
    const withTools = calls.find((c) => Array.isArray((c.body as { tools?: unknown[] }).tools));
    expect(withTools, "no upstream call carried Claude Code's tools").toBeTruthy();
    for (const t of (withTools!.body as { tools: { type: string; function: { name: string } }[] }).tools)
      expect(t).toMatchObject({ type: "function", function: { name: expect.any(String) } });
    const { debits, threads } = await billing(key);
    expect(debits).toHaveLength(threads.length);
    expect(debits.length).toBe(calls.length);
  });
});
