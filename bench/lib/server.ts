/**
 * The production server for benchmarks: make sure a build exists, start scripts/server/main.mjs (as
 * `npm start` does) on a free loopback port in its own process group, wait for /api/health, stop it
 * (the whole group) again.
 * Every started server is also killed when the bench process exits, whatever the reason.
 */
import { randomBytes } from "node:crypto";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { processTree } from "./proc";
import { SERVER_ENV, SERVER_NODE_FLAGS } from "../../scripts/server-node-flags";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const nextBin = (appRoot: string) => path.join(appRoot, "node_modules/next/dist/bin/next");

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface BuildInfo {
  buildId: string;
  builtNow: boolean;
  /** Source files (app/, lib/, db/, components/, config) modified after the build: the build may be stale. */
  newerSources: string[];
}

const SOURCE_DIRS = ["app", "lib", "db", "components"];
const SOURCE_FILES = ["next.config.ts", "instrumentation.ts", "package.json"];

function newerThan(ms: number, root: string): string[] {
  const out: string[] = [];
  const visit = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const e of fs.readdirSync(p)) if (e !== "node_modules" && !e.startsWith(".")) visit(path.join(p, e));
    } else if (st.mtimeMs > ms && /\.(ts|tsx|js|mjs|css|json|sql)$/.test(p) && !/\.test\.tsx?$/.test(p)) {
      out.push(path.relative(root, p));
    }
  };
  for (const d of SOURCE_DIRS) visit(path.join(root, d));
  for (const f of SOURCE_FILES) visit(path.join(root, f));
  return out;
}

/** Pids of `next build` processes running in `appRoot` (another engineer's, a CI step...). */
export function runningBuilds(appRoot = ROOT): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${e}/cmdline`, "utf8").replaceAll("\0", " ");
      if (!/next-build|next\/dist\/bin\/next build/.test(cmd)) continue;
      if (fs.readlinkSync(`/proc/${e}/cwd`) === appRoot) out.push(Number(e));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

const buildIdFile = (appRoot: string) => path.join(appRoot, ".next/BUILD_ID");

export function currentBuildId(appRoot = ROOT): string | null {
  try {
    return fs.readFileSync(buildIdFile(appRoot), "utf8").trim();
  } catch {
    return null;
  }
}

/**
 * Runs `next build` when .next/BUILD_ID is missing (or `force`); reports whether the build looks
 * stale. When someone else's `next build` is running in this project, waits for it instead of
 * starting a second one into the same .next.
 */
async function ensureBuild(
  opts: { force?: boolean; env?: NodeJS.ProcessEnv; waitMs?: number; appRoot?: string } = {},
): Promise<BuildInfo> {
  const appRoot = opts.appRoot ?? ROOT;
  const idFile = buildIdFile(appRoot);
  let builtNow = false;
  const deadline = Date.now() + (opts.waitMs ?? 600_000);
  for (let others = runningBuilds(appRoot); others.length > 0; others = runningBuilds(appRoot)) {
    if (Date.now() > deadline) throw new Error(`another next build (pid ${others.join(", ")}) is still running`);
    process.stderr.write(`[bench] waiting for a running next build (pid ${others.join(", ")}) to finish\n`);
    await sleep(5_000);
  }
  if (opts.force || !fs.existsSync(idFile)) {
    process.stderr.write(
      `[bench] ${opts.force ? "rebuilding" : "no production build found;"} running next build in ${appRoot}\n`,
    );
    const res = spawnSync(process.execPath, [nextBin(appRoot), "build"], {
      cwd: appRoot,
      stdio: ["ignore", 2, 2],
      env: { ...process.env, ...opts.env, NODE_ENV: "production" },
    });
    if (res.status !== 0) throw new Error(`next build failed (exit ${res.status})`);
    builtNow = true;
  }
  const buildId = fs.readFileSync(idFile, "utf8").trim();
  // Compared with the checkout's sources: for an isolated copy this shows edits made since the copy.
  return { buildId, builtNow, newerSources: newerThan(fs.statSync(idFile).mtimeMs, ROOT) };
}

/**
 * A private copy of the checkout to build and serve from, so a `next build` someone else runs in
 * the shared checkout cannot swap .next under a running benchmark. Sources are copied (bench/results,
 * .next, .data, .git left out); node_modules is hard-linked (same filesystem: seconds, no space),
 * falling back to a symlink. The copy lives in the OS temp dir; `remove()` deletes it.
 */
function makeIsolatedCopy(): { appRoot: string; remove: () => void } {
  const appRoot = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-bench-app-"));
  const skip = new Set([
    "node_modules",
    ".next",
    ".data",
    ".git",
    "test-results",
    "playwright-report",
    "tmp",
    "tsconfig.tsbuildinfo",
  ]);
  for (const e of fs.readdirSync(ROOT)) {
    if (skip.has(e)) continue;
    fs.cpSync(path.join(ROOT, e), path.join(appRoot, e), {
      recursive: true,
      filter: (src) => !src.startsWith(path.join(ROOT, "bench/results")),
    });
  }
  const linked = spawnSync("cp", ["-al", path.join(ROOT, "node_modules"), path.join(appRoot, "node_modules")], {
    stdio: "ignore",
  });
  if (linked.status !== 0) {
    fs.rmSync(path.join(appRoot, "node_modules"), { recursive: true, force: true });
    fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(appRoot, "node_modules"), "dir");
  }
  return { appRoot, remove: () => fs.rmSync(appRoot, { recursive: true, force: true }) };
}

export interface NextServer {
  pid: number;
  port: number;
  baseUrl: string;
  /** Last lines of the server's stdout+stderr. */
  logTail(lines?: number): string;
  exited(): boolean;
  /** SIGTERM to the process group, SIGKILL after `graceMs`; resolves once every process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  /** Directory holding the build (.next) and node_modules; default the checkout. */
  appRoot?: string;
  /** Environment on top of a cleaned copy of process.env (REDIS_URL, DATABASE_URL, NODE_OPTIONS dropped). */
  env: Record<string, string>;
  port?: number;
  /** Extra node flags for the server process, e.g. ["--cpu-prof", "--cpu-prof-dir=..."]. */
  nodeArgs?: string[];
  healthPath?: string;
  readyTimeoutMs?: number;
  /** Append the server's whole output to this file (default BENCH_SERVER_LOG), e.g. for --trace-gc. */
  logFile?: string;
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
  // Last resort (uncaught error, process.exit): nothing may outlive the bench.
  for (const child of live) killGroup(child.pid, "SIGKILL");
});

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Variables that must come from the benchmark, never leak in from the caller's shell. */
const DROPPED_ENV = ["REDIS_URL", "DATABASE_URL", "NODE_OPTIONS", "PORT", "AUTH_SECRET", "NEXTAUTH_URL", "LOG_LEVEL"];
// WEB_CONCURRENCY is kept: `WEB_CONCURRENCY=1 npm run bench` measures one server process.

/** What every bench starts the app with: its database, a fresh secret and data dir, production mode, quiet logs. */
export function appEnv(databaseUrl: string, dataDir: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    AUTH_SECRET: randomBytes(32).toString("hex"),
    AUTH_TRUST_HOST: "1",
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    DATA_DIR: dataDir,
  };
}

export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of DROPPED_ENV) delete env[k];
  return { ...env, ...extra };
}

/** Waits while someone else's `next build` runs or .next/BUILD_ID is missing (shared checkouts). */
export async function waitForBuild(appRoot = ROOT, maxWaitMs = 600_000): Promise<void> {
  const deadline = Date.now() + maxWaitMs;
  let said = false;
  while (runningBuilds(appRoot).length > 0 || !fs.existsSync(buildIdFile(appRoot))) {
    if (Date.now() > deadline)
      throw new Error("no complete production build in .next (a next build is running or none exists)");
    if (!said)
      process.stderr.write(
        `[bench] waiting for a next build in progress (pid ${runningBuilds(appRoot).join(", ") || "?"})\n`,
      );
    said = true;
    await sleep(3_000);
  }
}

/**
 * startNextOnce, retried when the build vanished under it (another `next build` started in this
 * checkout between our check and the server's start).
 */
export async function startNext(opts: StartOptions): Promise<NextServer> {
  for (let attempt = 1; ; attempt++) {
    await waitForBuild(opts.appRoot ?? ROOT);
    try {
      return await startNextOnce(opts);
    } catch (err) {
      const noBuild = /production-start-no-build-id|Could not find a production build/.test((err as Error).message);
      if (!noBuild || attempt >= 3) throw err;
      process.stderr.write(`[bench] .next disappeared while starting (a build started?); retrying\n`);
      await sleep(5_000);
    }
  }
}

async function startNextOnce(opts: StartOptions): Promise<NextServer> {
  const port = opts.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const appRoot = opts.appRoot ?? ROOT;
  // The production server's heap flags (npm start), then the caller's.
  // The production server of `npm start` (Next.js custom server with the fast lane; WEB_CONCURRENCY workers).
  const launcher = path.join(appRoot, "scripts/server/main.mjs");
  // BENCH_NODE_ARGS="--trace-gc …": extra flags for the server's node, e.g. to look at its GC.
  const extraArgs = process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  const child = spawn(
    process.execPath,
    [...SERVER_NODE_FLAGS, ...(opts.nodeArgs ?? []), ...extraArgs, launcher, "-p", String(port), "-H", "127.0.0.1"],
    {
      cwd: appRoot,
      env: cleanEnv({ ...SERVER_ENV, PORT: String(port), ...opts.env }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // own process group: stop() reaches whatever the server spawns (cluster workers)
    },
  );
  live.add(child);
  const lines: string[] = [];
  // BENCH_SERVER_LOG=<file> or opts.logFile: keep the server's whole output (e.g. with --trace-gc), not just its tail.
  const logFile = opts.logFile ?? process.env.BENCH_SERVER_LOG;
  const fullLog = logFile ? fs.createWriteStream(logFile, { flags: "a" }) : undefined;
  // The spawn's wall clock, to line --trace-gc's times (ms since the process started) up with a load's.
  fullLog?.write(`# server ${child.pid} spawned at ${Date.now()}\n`);
  const collect = (chunk: Buffer) => {
    fullLog?.write(chunk);
    for (const l of chunk.toString("utf8").split("\n")) if (l.trim()) lines.push(l);
    if (lines.length > 400) lines.splice(0, lines.length - 400);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  let exitInfo: string | undefined;
  const exitedP = new Promise<void>((resolve) =>
    child.on("exit", (code, signal) => {
      exitInfo = `exit ${code ?? signal}`;
      live.delete(child);
      resolve();
    }),
  );
  const pid = child.pid!;

  const server: NextServer = {
    pid,
    port,
    baseUrl,
    logTail: (n = 40) => lines.slice(-n).join("\n"),
    exited: () => exitInfo !== undefined,
    async stop(graceMs = 10_000) {
      const tree = processTree(pid);
      if (exitInfo === undefined) {
        killGroup(pid, "SIGTERM");
        const timedOut = await Promise.race([exitedP.then(() => false), sleep(graceMs).then(() => true)]);
        if (timedOut) killGroup(pid, "SIGKILL");
        await exitedP;
      }
      // Anything of the tree that escaped the group (it should not) is ours too.
      for (let i = 0; i < 50; i++) {
        const left = tree.filter((p) => fs.existsSync(`/proc/${p}`) && !isZombie(p));
        if (left.length === 0) return;
        if (i === 20) for (const p of left) killGroup(p, "SIGKILL");
        await sleep(100);
      }
      throw new Error(`server processes still alive after stop: ${tree.join(", ")}`);
    },
  };

  try {
    await waitForHealth(`${baseUrl}${opts.healthPath ?? "/api/health"}`, opts.readyTimeoutMs ?? 90_000, () => exitInfo);
  } catch (err) {
    await server.stop(2_000).catch(() => {});
    throw new Error(`${(err as Error).message}\n--- server log ---\n${server.logTail()}`);
  }
  return server;
}

function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false;
  }
}

/** Polls `url` until it answers 200; fails early when `dead()` reports the server exited. */
export async function waitForHealth(
  url: string,
  timeoutMs: number,
  dead: () => string | undefined = () => undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer";
  while (Date.now() < deadline) {
    const gone = dead();
    if (gone) throw new Error(`server exited before it was healthy (${gone})`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(200);
  }
  throw new Error(`${url} not healthy after ${timeoutMs} ms (${last})`);
}

/** Is something answering Redis PING on host:port? */
export function redisAnswers(host = "127.0.0.1", port = 6379, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ host, port });
    let buf = "";
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.on("error", () => done(false));
    sock.on("connect", () => sock.write("PING\r\n"));
    sock.on("data", (d) => {
      buf += d.toString("utf8");
      if (buf.includes("\r\n")) done(buf.startsWith("+PONG"));
    });
  });
}

export interface PreparedBuild {
  appRoot: string;
  build: BuildInfo;
  isolated: boolean;
  /** Removes the isolated copy (no-op for the checkout). */
  cleanup: () => void;
}

/** The checkout's build (made if missing), or with `isolated` a fresh build of a private copy. */
export async function prepareBuild(opts: { isolated?: boolean; force?: boolean } = {}): Promise<PreparedBuild> {
  if (!opts.isolated)
    return { appRoot: ROOT, build: await ensureBuild({ force: opts.force }), isolated: false, cleanup: () => {} };
  const copy = makeIsolatedCopy();
  process.stderr.write(`[bench] building an isolated copy in ${copy.appRoot}\n`);
  try {
    const t = Date.now();
    const build = await ensureBuild({ appRoot: copy.appRoot, force: true });
    process.stderr.write(`[bench] isolated build done in ${Math.round((Date.now() - t) / 1000)} s\n`);
    return { appRoot: copy.appRoot, build, isolated: true, cleanup: copy.remove };
  } catch (err) {
    copy.remove();
    throw err;
  }
}
