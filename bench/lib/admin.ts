/**
 * The operator CLI (scripts/admin.ts) as a benchmark's only way to create companies and keys: app
 * modules import "server-only" and cannot be loaded here. One JSON object per call on stdout.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { cleanEnv, ROOT } from "./server";

const TSX_CLI = path.join(ROOT, "node_modules/tsx/dist/cli.mjs");

/** Highest --rpm the CLI accepts (RateLimitPerMinute in lib/keys/schemas.ts). */
export const MAX_RPM = 100_000;

export async function admin(
  databaseUrl: string,
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, [TSX_CLI, "--conditions=react-server", "scripts/admin.ts", ...args], {
    cwd: ROOT,
    env: cleanEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: "warn", ...extraEnv }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  const last = out.trim().split("\n").pop() ?? "";
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = JSON.parse(last) as Record<string, unknown>;
  } catch {
    // handled below
  }
  if (code !== 0 || !parsed || "error" in parsed) {
    const what = parsed && "error" in parsed ? String(parsed.error) : `exit ${code}`;
    throw new Error(`admin ${args.slice(0, 2).join(" ")} failed: ${what}\n${err.trim()}`);
  }
  return parsed;
}

export async function createCompany(databaseUrl: string, name: string): Promise<string> {
  const res = await admin(databaseUrl, ["company", "create", "--name", name]);
  return String(res.company_id);
}

export interface CreatedKey {
  id: string;
  secret: string;
  rpm: number;
}

export async function createKey(
  databaseUrl: string,
  companyId: string,
  opts: { scopes?: string[]; rpm?: number; name?: string } = {},
): Promise<CreatedKey> {
  const res = await admin(databaseUrl, [
    "key",
    "create",
    "--company",
    companyId,
    "--scopes",
    (opts.scopes ?? ["chat", "view", "action", "admin"]).join(","),
    "--rpm",
    String(opts.rpm ?? MAX_RPM),
    "--name",
    opts.name ?? "bench",
  ]);
  return { id: String(res.id), secret: String(res.key), rpm: Number(res.rate_limit_per_minute) };
}

/** `count` keys, created `parallel` at a time (each CLI run is a fresh tsx process, ~1 s). */
export async function createKeys(
  databaseUrl: string,
  companyId: string,
  count: number,
  parallel = 2,
  rpm = MAX_RPM,
): Promise<CreatedKey[]> {
  const keys: CreatedKey[] = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - i) }, (_, j) =>
      createKey(databaseUrl, companyId, { name: `bench ${i + j + 1}`, rpm }),
    );
    keys.push(...(await Promise.all(batch)));
  }
  return keys;
}
