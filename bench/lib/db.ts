/**
 * A throw-away, migrated database per benchmark run:
 *  - DATABASE_URL set: a fresh `cockpit_bench_<timestamp>` database on that server, dropped at the end;
 *  - else: an embedded PostgreSQL in a temp dir on a free port, stopped and deleted at the end;
 *  - or (useDatabase) a given database as it is, migrated, never dropped.
 * Also: pids of the PostgreSQL backends serving the bench database, for CPU accounting.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { destroyEmbeddedDatabase, embeddedClusterDir, ensureEmbeddedDatabase } from "../../db/embedded";
import { runMigrations } from "../../db/migrate";
import { freePort } from "./server";

export interface BenchDatabase {
  mode: "server" | "embedded";
  url: string;
  /** Database name (for display; the URL carries no password in embedded mode, may in server mode). */
  name: string;
  /** Host:port without credentials. */
  where: string;
  /** Pids of server backends connected to this database (empty if the server is not on this host). */
  backendPids(): Promise<number[]>;
  /** Postmaster pid when the server runs on this machine and is ours (embedded), else null. */
  postmasterPid: number | null;
  cleanup(): Promise<void>;
}

function stamp(d = new Date()): string {
  // cockpit_bench_20260101_120000_123: sortable, a valid unquoted identifier.
  const iso = d.toISOString(); // 2026-01-01T12:00:00.123Z
  return `${iso.slice(0, 10).replaceAll("-", "")}_${iso.slice(11, 19).replaceAll(":", "")}_${iso.slice(20, 23)}`;
}

const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

export async function provisionDatabase(opts: { serverUrl?: string } = {}): Promise<BenchDatabase> {
  const db = opts.serverUrl ? await onServer(opts.serverUrl) : await embedded();
  try {
    const t = Date.now();
    await runMigrations(db.url);
    log(`migrated ${db.name} in ${Date.now() - t} ms`);
  } catch (err) {
    await db.cleanup().catch(() => {});
    throw err;
  }
  return db;
}

/**
 * The database of `url` itself, migrated and never dropped: for a shared server where a benchmark
 * may only use its own database (the caller's rows are left alone; the bench adds its own
 * companies).
 */
export async function useDatabase(url: string): Promise<BenchDatabase> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.replace(/^\//, ""));
  const t = Date.now();
  await runMigrations(url);
  log(`using database ${name} on ${u.host} in place (migrated in ${Date.now() - t} ms)`);
  const backends = makeBackendLister(url, name);
  return {
    mode: "server",
    url,
    name,
    where: u.host,
    backendPids: () => backends.list(),
    postmasterPid: null,
    cleanup: () => backends.end(),
  };
}

function makeBackendLister(url: string, dbName: string): { list(): Promise<number[]>; end(): Promise<void> } {
  let sql: postgres.Sql | undefined;
  return {
    async list() {
      sql ??= postgres(url, { max: 1, onnotice: () => {}, idle_timeout: 0 });
      // Our database's backends plus the server-wide WAL writer / checkpointer / bgwriter, whose
      // work during a bench is mostly ours.
      const rows = await sql<{ pid: number }[]>`
        select pid from pg_stat_activity
        where pid <> pg_backend_pid()
          and (datname = ${dbName} or backend_type in ('walwriter', 'checkpointer', 'background writer'))`;
      return rows.map((r) => r.pid).filter((pid) => fs.existsSync(`/proc/${pid}`));
    },
    async end() {
      await sql?.end({ timeout: 2 });
      sql = undefined;
    },
  };
}

async function onServer(serverUrl: string): Promise<BenchDatabase> {
  const name = `cockpit_bench_${stamp()}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  log(`created database ${name} on ${u.host}`);
  const backends = makeBackendLister(url, name);
  return {
    mode: "server",
    url,
    name,
    where: u.host,
    backendPids: () => backends.list(),
    postmasterPid: null,
    async cleanup() {
      await backends.end();
      const sql = postgres(serverUrl, { max: 1, onnotice: () => {} });
      try {
        // WITH (FORCE) (PostgreSQL 13+) ends leftover sessions, e.g. of a server that was SIGKILLed.
        await sql.unsafe(`drop database if exists "${name}" with (force)`);
        log(`dropped database ${name}`);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  };
}

async function embedded(): Promise<BenchDatabase> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-bench-"));
  const dataDir = path.join(tmp, "pg");
  const port = await freePort();
  const name = "cockpit_bench";
  let url: string;
  try {
    url = await ensureEmbeddedDatabase({ dataDir, port, database: name });
  } catch (err) {
    await destroyEmbeddedDatabase({ dataDir }).catch(() => {});
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  const pidLine = fs.readFileSync(path.join(embeddedClusterDir({ dataDir }), "postmaster.pid"), "utf8").split("\n")[0];
  const postmasterPid = Number.parseInt(pidLine ?? "", 10) || null;
  const backends = makeBackendLister(url, name);
  return {
    mode: "embedded",
    url,
    name,
    where: `127.0.0.1:${port} (embedded, ${dataDir})`,
    backendPids: () => backends.list(),
    postmasterPid,
    async cleanup() {
      await backends.end();
      try {
        await destroyEmbeddedDatabase({ dataDir });
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
        log(`removed ${tmp}`);
      }
    },
  };
}
