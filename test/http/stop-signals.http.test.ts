import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../support/next-server";

/**
 * Every documented way of starting a process (`npm start`, `npm run worker`) stops on SIGTERM to
 * its top process, the npm process a process manager starts and signals: the signal reaches the
 * server (or worker) through every process in between, they all exit, and the port is free. A
 * process left behind would keep the port and the database's connections.
 */
const STOP_BOUND_MS = 30_000;

const spawned: ChildProcess[] = [];
let tree: number[] = [];

afterEach(() => {
  // A failed test leaves no process behind (the ones this test started, by pid).
  for (const pid of tree) if (alive(pid)) process.kill(pid, "SIGKILL");
  for (const child of spawned.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  tree = [];
});

function childrenOf(pid: number): number[] {
  try {
    return execFileSync("ps", ["--ppid", String(pid), "-o", "pid="], { encoding: "utf8" })
      .split("\n")
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when nothing matches
  }
}

function descendantsOf(pid: number): number[] {
  const kids = childrenOf(pid);
  return [...kids, ...kids.flatMap(descendantsOf)];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function npm(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const { HOST: _inherited, ...inherited } = process.env;
  const child = spawn("npm", args, { env: { ...inherited, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  spawned.push(child);
  let output = "";
  const keep = (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-32_768));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return { child, output: () => output };
}

const common = () => ({
  AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
  REDIS_URL: "",
  LOG_LEVEL: "info",
  SHUTDOWN_GRACE_MS: "5000",
});

/** SIGTERM to the top process only; every process of the tree is gone within the bound. */
async function stopTop(top: ChildProcess, all: number[]): Promise<void> {
  const exited = new Promise<void>((resolve) => top.once("exit", () => resolve()));
  const signalledAt = Date.now();
  process.kill(top.pid!, "SIGTERM");
  await until(
    () => all.every((pid) => !alive(pid)),
    STOP_BOUND_MS,
    `processes still running: ${all.filter(alive).join(", ")}`,
  );
  await exited;
  console.log(`SIGTERM to npm: ${all.length} processes gone in ${Date.now() - signalledAt} ms`);
}

describe("SIGTERM to the top process", () => {
  it("npm start: the server and every process between it and npm exit, and the port is free", async () => {
    const port = await freePort();
    const run = npm(["start"], { ...common(), PORT: String(port) });
    await until(
      async () => {
        if (run.child.exitCode !== null) throw new Error(`npm start exited: ${run.output()}`);
        return accepts(port);
      },
      120_000,
      "npm start listening",
    );
    // npm, the process running scripts/start.ts and the server (and whatever is in between).
    tree = [run.child.pid!, ...descendantsOf(run.child.pid!)];
    expect(tree.length).toBeGreaterThanOrEqual(3);
    await stopTop(run.child, tree);
    expect(await accepts(port)).toBe(false);
  }, 180_000);

  it("npm run worker: the worker and every process between it and npm exit", async () => {
    const run = npm(["run", "worker"], { ...common(), NODE_ENV: "production" });
    await until(
      () => {
        if (run.child.exitCode !== null) throw new Error(`npm run worker exited: ${run.output()}`);
        return run.output().includes("worker started");
      },
      120_000,
      "worker started",
    );
    tree = [run.child.pid!, ...descendantsOf(run.child.pid!)];
    expect(tree.length).toBeGreaterThanOrEqual(2);
    await stopTop(run.child, tree);
  }, 180_000);
});
