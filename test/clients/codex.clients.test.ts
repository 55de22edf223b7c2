import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useGateway } from "../support/gateway";
import { clientBinary, runClient } from "./agent-clients";

/**
 * Codex CLI (the npm package of ./clients, unmodified) with a model provider entry pointing at the
 * gateway's Responses API, run as `codex exec`. Every call it makes is a response billed once.
 */
const gw = useGateway();

function codexHome(model: string): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "codex-home-"));
  fs.writeFileSync(
    path.join(home, "config.toml"),
    [
      `model = "${model}"`,
      `model_provider = "cockpit"`,
      "",
      "[model_providers.cockpit]",
      `name = "Cockpit gateway"`,
      `base_url = "${gw.server.url}/v1"`,
      `env_key = "COCKPIT_API_KEY"`,
      `wire_api = "responses"`,
      "",
    ].join("\n"),
  );
  return home;
}

async function codex(key: string, model: string, prompt: string) {
  const home = codexHome(model);
  try {
    return await runClient(
      clientBinary("codex"),
      ["exec", "--skip-git-repo-check", "--color", "never", prompt],
      { CODEX_HOME: home, COCKPIT_API_KEY: key, RUST_LOG: "error" },
      { home },
    );
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

async function billing(key: string) {
  const usage = await gw.call(key, "GET", "/v1/usage?limit=100");
  const threads = await gw.call(key, "GET", "/v1/threads?source=responses&limit=100");
  const debits = (usage.json.data as { kind: string; reference_id: string }[]).filter((e) => e.kind !== "grant");
  return { debits, threads: threads.json.data as { id: string }[] };
}

describe("Codex CLI through /v1/responses", () => {
  it("answers a prompt on an offline model; each of its calls billed once", async () => {
    const { key } = await gw.tenant(100);
    const run = await codex(key, "local-chat-latest", "Reply with one short sentence about invoices.");
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout.trim()).not.toBe("");
    const { debits } = await billing(key);
    expect(debits.length).toBeGreaterThanOrEqual(1);
    expect(new Set(debits.map((d) => d.reference_id)).size).toBe(debits.length);
    for (const d of debits) expect(d.reference_id).toMatch(/^resp_/);
  });

  it("runs a command the model calls and answers with its output (function_call → function_call_output)", async () => {
    const { key } = await gw.tenant(100);
    const run = await codex(key, "local-chat-latest", 'call exec_command {"cmd": "echo gateway-$((6*7))"}');
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    // The local model quotes the tool's output: the marker only the shell could have computed.
    expect(run.stdout).toContain("gateway-42");
    const { debits } = await billing(key);
    expect(debits.length).toBeGreaterThanOrEqual(2);
    expect(new Set(debits.map((d) => d.reference_id)).size).toBe(debits.length);
  });

  it("reaches an upstream group through the provider's protocol", async () => {
    const { key } = await gw.tenant(100);
    const run = await codex(key, "gpt-4o-mini", "Say hello.");
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const calls = gw.fake.requests.filter((r) => r.path.endsWith("/chat/completions"));
    expect(calls.length).toBeGreaterThanOrEqual(1);
    const { debits } = await billing(key);
    expect(debits.length).toBe(calls.length);
  });
});
