/**
 * `npm test` (CONTRACT 1): unit → integration (real PostgreSQL) → build → multi-process HTTP →
 * end-to-end (Playwright on Chromium). One database for the whole run: DATABASE_URL when set, else
 * a throwaway embedded PostgreSQL. Ends with the line `N passed, N failed`.
 *
 * Flags: --only unit,db,http,e2e to run some stages; --no-build to reuse an existing .next build.
 * `--only clients` runs the real agent clients (Claude Code, Codex CLI) of ./clients, which
 * `npm run test:clients` installs first; they are not part of `npm test`.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { provisionTestDatabase } from "../test/support/test-database";
import { buildWidget } from "./build-widget";

type Stage = "unit" | "db" | "http" | "e2e" | "clients";
const ALL: Stage[] = ["unit", "db", "http", "e2e"];

const args = process.argv.slice(2);
const onlyArg = args.indexOf("--only");
const stages = onlyArg >= 0 ? (args[onlyArg + 1]!.split(",") as Stage[]) : ALL;
const skipBuild = args.includes("--no-build");
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-reports-"));

interface Tally {
  passed: number;
  failed: number;
  /** Names of the failed tests, where the report gives them. */
  failedNames?: string[];
}

function run(cmd: string, cmdArgs: string[], env: NodeJS.ProcessEnv): number {
  const res = spawnSync(cmd, cmdArgs, { stdio: "inherit", env });
  return res.status ?? 1;
}

function vitestStage(project: string, env: NodeJS.ProcessEnv): Tally {
  const out = path.join(reportDir, `${project}.json`);
  const code = run(
    process.execPath,
    [
      "node_modules/vitest/vitest.mjs",
      "run",
      "--project",
      project,
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${out}`,
    ],
    env,
  );
  if (!fs.existsSync(out)) return { passed: 0, failed: 1 };
  const r = JSON.parse(fs.readFileSync(out, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    testResults: { name: string; status: string; assertionResults: { fullName: string; status: string }[] }[];
  };
  const failedNames = r.testResults.flatMap((file) => {
    const tests = file.assertionResults.filter((t) => t.status === "failed");
    const where = path.relative(process.cwd(), file.name);
    if (tests.length === 0 && file.status === "failed") return [`${where} (did not load)`];
    return tests.map((t) => `${where} › ${t.fullName}`);
  });
  // A suite that fails to load has no failed tests but a non-zero exit: count it.
  return { passed: r.numPassedTests, failed: r.numFailedTests || (code === 0 ? 0 : 1), failedNames };
}

function e2eStage(env: NodeJS.ProcessEnv): Tally {
  const out = path.join(reportDir, "e2e.json");
  const code = run(process.execPath, ["node_modules/@playwright/test/cli.js", "test"], {
    ...env,
    PLAYWRIGHT_JSON_OUTPUT_NAME: out,
  });
  if (!fs.existsSync(out)) return { passed: 0, failed: 1 };
  const r = JSON.parse(fs.readFileSync(out, "utf8")) as PlaywrightReport;
  return {
    passed: r.stats.expected + r.stats.flaky,
    failed: r.stats.unexpected || (code === 0 ? 0 : 1),
    failedNames: failedSpecs(r.suites),
  };
}

interface PlaywrightSuite {
  title: string;
  file?: string;
  specs?: { title: string; ok: boolean; file: string }[];
  suites?: PlaywrightSuite[];
}
interface PlaywrightReport {
  stats: { expected: number; unexpected: number; flaky: number };
  suites: PlaywrightSuite[];
}

function failedSpecs(suites: PlaywrightSuite[] = []): string[] {
  return suites.flatMap((s) => [
    ...(s.specs ?? []).filter((sp) => !sp.ok).map((sp) => `${sp.file} › ${sp.title}`),
    ...failedSpecs(s.suites),
  ]);
}

async function main(): Promise<number> {
  const total: Tally = { passed: 0, failed: 0 };
  const failedNames: string[] = [];
  const add = (t: Tally, name: string) => {
    total.passed += t.passed;
    total.failed += t.failed;
    for (const n of t.failedNames ?? []) failedNames.push(`[failed] ${name}: ${n}`);
    process.stdout.write(`\n[${name}] ${t.passed} passed, ${t.failed} failed\n\n`);
  };
  const needsDb = stages.some((s) => s !== "unit");
  const database = needsDb ? await provisionTestDatabase() : null;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(database ? { DATABASE_URL: database.url } : {}),
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    AUTH_TRUST_HOST: "1",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    NODE_ENV: "production",
  };
  try {
    if (stages.includes("unit")) add(vitestStage("unit", { ...env, NODE_ENV: "test" }), "unit");
    if (stages.includes("db")) add(vitestStage("db", { ...env, NODE_ENV: "test" }), "integration");
    // The widget is built even with --no-build: it takes ~0.1 s and the e2e tests load it.
    const served = stages.some((s) => s === "http" || s === "e2e" || s === "clients");
    if (served) await buildWidget();
    if (served && !skipBuild) {
      const code = run(process.execPath, ["node_modules/next/dist/bin/next", "build"], env);
      add({ passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1 }, "build");
    }
    if (stages.includes("http")) add(vitestStage("http", { ...env, NODE_ENV: "test" }), "multi-process http");
    if (stages.includes("e2e")) add(e2eStage(env), "e2e");
    if (stages.includes("clients")) add(vitestStage("clients", { ...env, NODE_ENV: "test" }), "agent clients");
  } finally {
    await database?.cleanup();
  }
  // The failures' names last but one, where a log's tail still shows them.
  for (const line of failedNames) process.stdout.write(`${line}\n`);
  process.stdout.write(`${total.passed} passed, ${total.failed} failed\n`);
  return total.failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.stdout.write("0 passed, 1 failed\n");
    process.exit(1);
  },
);
