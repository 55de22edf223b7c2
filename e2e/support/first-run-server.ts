import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import net from "node:net";
import postgres from "postgres";

/** A database of its own on the test's PostgreSQL server (DATABASE_URL's), dropped by `drop`. */
export async function createScratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
  const name = `e2e_first_run_${randomBytes(4).toString("hex")}`;
  const adminUrl = new URL(base);
  adminUrl.pathname = "/postgres";
  const sql = postgres(adminUrl.href, { max: 1, onnotice: () => {} });
  await sql`create database ${sql(name)}`;
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      await sql`drop database if exists ${sql(name)} with (force)`;
      await sql.end({ timeout: 5 });
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface StartedApp {
  process: ChildProcess;
  /** Everything written to stdout so far. */
  stdout: () => string;
  stop: () => Promise<void>;
}

/**
 * Runs the real `npm start` entry (scripts/start.ts, reusing the existing .next build) on `port`
 * against `databaseUrl`, and resolves once stdout matches `until`.
 */
export async function startApp(args: { databaseUrl: string; port: number; until: RegExp; timeoutMs: number }) {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=react-server", "scripts/start.ts"], {
    env: { ...process.env, DATABASE_URL: args.databaseUrl, PORT: String(args.port), HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
  const app: StartedApp = {
    process: child,
    stdout: () => out,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new Error(
          `npm start printed no match for ${args.until} in ${args.timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`,
        ),
      );
    }, args.timeoutMs);
    const check = () => {
      if (!args.until.test(out)) return;
      clearTimeout(timer);
      child.stdout.off("data", check);
      resolve();
    };
    child.stdout.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before printing ${args.until}\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
  return app;
}
