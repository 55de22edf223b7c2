import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { destroyEmbeddedDatabase } from "@/db/embedded";
import { freePort } from "../support/next-server";

/**
 * `npm start` and `npm run worker` on the embedded database (DATABASE_URL unset), as a user runs
 * them: each in its own process group, stopped with SIGINT to the whole group as Ctrl-C does. The
 * data dir and both ports are this test's own, so nothing else is touched.
 */
const STOP_WITHIN_MS = 15_000;

interface Started {
  child: ChildProcess;
  pgid: number;
  output: () => string;
}

let dir: string;
let appPort: number;
let pgPort: number;
let env: NodeJS.ProcessEnv;
const started: Started[] = [];

function npm(args: string[]): Started {
  const child = spawn("npm", args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-32_768);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const s = { child, pgid: child.pid!, output: () => output };
  started.push(s);
  return s;
}

/** Pids whose process group is `pgid`, zombies excepted (PID 1 here may reap them late). */
function liveMembers(pgid: number): number[] {
  return procStats()
    .filter((p) => p.pgrp === pgid && p.state !== "Z")
    .map((p) => p.pid);
}

/** Live processes whose command line names this test's data dir or the cluster (postgres -D …). */
function processesUsing(...paths: string[]): number[] {
  return procStats()
    .filter((p) => p.state !== "Z")
    .filter((p) => {
      const cmdline = readText(`/proc/${p.pid}/cmdline`)?.replaceAll("\0", " ") ?? "";
      return paths.some((x) => cmdline.includes(x));
    })
    .map((p) => p.pid);
}

function procStats(): { pid: number; state: string; pgrp: number }[] {
  const out: { pid: number; state: string; pgrp: number }[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readText(`/proc/${name}/stat`);
    if (!stat) continue;
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.push({ pid: Number(name), state: state!, pgrp: Number(pgrp) });
  }
  return out;
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

async function waitFor(
  what: string,
  ok: () => boolean | Promise<boolean>,
  ms: number,
  logs: () => string = () => "",
): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    if (await ok()) return Date.now() - t0;
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms\n${logs()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function healthy(): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${appPort}/api/health`)).ok;
  } catch {
    return false;
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });
}

/** The running embedded server: its data directory (asked of it) and its postmaster's pid. */
async function embeddedServer(): Promise<{ clusterDir: string; pid: number }> {
  const sql = postgres(`postgres://postgres@127.0.0.1:${pgPort}/postgres`, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ dir: string }[]>`select current_setting('data_directory') as dir`;
    const pid = Number.parseInt(fs.readFileSync(path.join(row!.dir, "postmaster.pid"), "utf8").split("\n")[0]!, 10);
    return { clusterDir: row!.dir, pid };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

const alive = (pid: number) => procStats().some((p) => p.pid === pid && p.state !== "Z");

async function startApp(): Promise<Started> {
  const app = npm(["start"]);
  await waitFor("npm start serving /api/health", healthy, 100_000, app.output);
  return app;
}

async function startWorker(): Promise<Started> {
  const worker = npm(["run", "worker"]);
  await waitFor("npm run worker started", () => worker.output().includes("worker started"), 60_000, worker.output);
  return worker;
}

/** Ctrl-C: SIGINT to every process of the group; resolves once none of them is left. */
async function interrupt(s: Started, logs = s.output): Promise<number> {
  process.kill(-s.pgid, "SIGINT");
  return waitFor(
    `processes of group ${s.pgid} gone after SIGINT`,
    () => liveMembers(s.pgid).length === 0,
    STOP_WITHIN_MS,
    logs,
  );
}

async function expectNothingLeft(server: { clusterDir: string; pid: number }, ms = STOP_WITHIN_MS) {
  await waitFor("embedded postgres stopped", () => !alive(server.pid), ms);
  expect(await portOpen(pgPort)).toBe(false);
  expect(processesUsing(dir, server.clusterDir)).toEqual([]);
}

describe("the embedded database stops with the last of the project's processes", () => {
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-lifecycle-"));
    [appPort, pgPort] = [await freePort(), await freePort()];
    const { DATABASE_URL: _external, HOST: _host, ...inherited } = process.env;
    env = {
      ...inherited,
      NODE_ENV: "production",
      LOG_LEVEL: "info",
      DATA_DIR: dir,
      EMBEDDED_PG_PORT: String(pgPort),
      PORT: String(appPort),
    };
  });

  afterAll(async () => {
    for (const s of started) {
      for (const pid of liveMembers(s.pgid)) process.kill(pid, "SIGKILL");
    }
    await destroyEmbeddedDatabase({ dataDir: path.join(dir, "pg") });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("SIGINT on npm start: the app, then the database it started, are gone within 15 s", async () => {
    const app = await startApp();
    expect(app.output()).toContain("npm run db:stop");
    const server = await embeddedServer();
    expect(alive(server.pid)).toBe(true);

    const t0 = Date.now();
    await interrupt(app);
    await expectNothingLeft(server, STOP_WITHIN_MS - (Date.now() - t0));
  });

  it("with a worker still attached the database stays up, and stops when the worker exits", async () => {
    const app = await startApp();
    const worker = await startWorker();
    const server = await embeddedServer();

    await interrupt(app);
    expect(liveMembers(worker.pgid).length).toBeGreaterThan(0);
    expect(alive(server.pid)).toBe(true);
    const sql = postgres(`postgres://postgres@127.0.0.1:${pgPort}/cockpit`, { max: 1, onnotice: () => {} });
    try {
      expect(await sql`select count(*)::int as n from companies`).toEqual([{ n: 1 }]); // the demo company
    } finally {
      await sql.end({ timeout: 1 });
    }

    const t0 = Date.now();
    await interrupt(worker);
    await expectNothingLeft(server, STOP_WITHIN_MS - (Date.now() - t0));
  });

  it("npm run db:stop refuses while a process uses the database, and stops one left by a killed process", async () => {
    const worker = await startWorker();
    const server = await embeddedServer();
    const dbStop = () => spawnSync("npm", ["run", "db:stop"], { env, encoding: "utf8", timeout: 60_000 });

    const refused = dbStop();
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain(`still used by pid`);
    expect(alive(server.pid)).toBe(true);

    // A crash: no chance to unregister, so the database stays up until someone stops it.
    for (const pid of liveMembers(worker.pgid)) process.kill(pid, "SIGKILL");
    await waitFor("killed worker gone", () => liveMembers(worker.pgid).length === 0, 5_000);
    expect(alive(server.pid)).toBe(true);

    const stopped = dbStop();
    expect(stopped.stdout).toContain("Stopped the embedded database");
    expect(stopped.status).toBe(0);
    await expectNothingLeft(server);
  });
});
