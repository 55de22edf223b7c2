import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A binary of ./clients (installed by `npm run test:clients`). */
export function clientBinary(name: "claude" | "codex"): string {
  const bin = path.resolve("clients/node_modules/.bin", name);
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run test:clients\`, which installs ./clients`);
  return bin;
}

export interface ClientRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs an agent client headless in a scratch home and working directory, with only the
 * environment given (no provider keys or proxies of the shell leak in).
 */
export async function runClient(
  bin: string,
  args: string[],
  env: Record<string, string>,
  opts: { timeoutMs?: number; home?: string } = {},
): Promise<ClientRun> {
  const home = opts.home ?? fs.mkdtempSync(path.join(os.tmpdir(), "agent-client-home-"));
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "agent-client-cwd-"));
  const child = spawn(bin, args, {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TERM: "dumb", NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  fs.rmSync(cwd, { recursive: true, force: true });
  if (!opts.home) fs.rmSync(home, { recursive: true, force: true });
  return { code, stdout, stderr };
}
