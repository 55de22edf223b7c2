import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import net from "node:net";
import { freePort } from "../support/next-server";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether something accepts TCP connections on the loopback port. */
export async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });
}

/** A Redis of its own when redis-server is installed, else the machine's 6379 with a database of its own. */
export async function startRedis(): Promise<{ port: number; db: number; stop: () => Promise<void> }> {
  if (spawnSync("redis-server", ["--version"]).status === 0) {
    const port = await freePort();
    const child: ChildProcess = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
    process.once("exit", () => child.kill("SIGKILL"));
    for (let i = 0; i < 100 && !(await accepts(port)); i++) await sleep(50);
    const stop = () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
    return { port, db: 0, stop };
  }
  if (!(await accepts(6379)))
    throw new Error("the cluster test needs redis-server installed or a Redis on 127.0.0.1:6379");
  return { port: 6379, db: 11, stop: async () => {} };
}

/** postgres.js options for the server of a PostgreSQL URL. */
export function pgOptions(url: URL) {
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    username: decodeURIComponent(url.username || "postgres"),
    password: url.password ? decodeURIComponent(url.password) : undefined,
    onnotice: () => {},
  };
}
