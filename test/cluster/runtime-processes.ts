import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ClusterEnv, ClusterRuntime } from "./runtime";
import { waitForReady } from "./wait-ready";

/** Past this, a process that ignores its signal is killed (it should exit on its own well before). */
const STOP_TIMEOUT_MS = 60_000;

/**
 * The cluster on plain processes of this checkout: the production server as `npm start` runs it
 * (scripts/server/main.mjs) and the worker as `npm run worker` does. Each process writes its output
 * to `<logDir>/<name>.log`.
 */
export function processRuntime(
  logDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-cluster-logs-")),
): ClusterRuntime {
  const apps = new Map<number, ChildProcess>();
  const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
  let worker: ChildProcess | undefined;
  fs.mkdirSync(logDir, { recursive: true });
  // A driver that dies leaves no server behind.
  process.once("exit", () => {
    for (const child of [...apps.values(), ...(worker ? [worker] : [])]) if (!exited(child)) child.kill("SIGKILL");
  });

  const launch = (name: string, args: string[], env: ClusterEnv): ChildProcess => {
    const { HOST: _inherited, ...inherited } = process.env;
    const log = fs.openSync(path.join(logDir, `${name}.log`), "a");
    const child = spawn(process.execPath, args, {
      env: { ...inherited, AUTH_TRUST_HOST: "1", NODE_ENV: "production", ...env },
      stdio: ["ignore", log, log],
    });
    fs.closeSync(log);
    return child;
  };

  const stop = (child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> =>
    new Promise((resolve) => {
      if (exited(child)) return resolve(child.exitCode);
      const killer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      child.once("exit", (code) => {
        clearTimeout(killer);
        resolve(code);
      });
      child.kill(signal);
    });

  return {
    async startApp(index, env) {
      if (!env.PORT) throw new Error("startApp needs env.PORT");
      const child = launch(`app-${index}`, ["scripts/server/main.mjs"], env);
      apps.set(index, child);
      const url = `http://127.0.0.1:${env.PORT}`;
      await waitForReady(index, url, () =>
        exited(child) ? `exited with ${child.exitCode ?? child.signalCode} at start` : null,
      );
      return { url };
    },
    async stopApp(index, signal) {
      const child = apps.get(index);
      if (!child) throw new Error(`app ${index} was not started`);
      const code = await stop(child, signal);
      apps.delete(index);
      return code;
    },
    async startWorker(env) {
      const child = launch("worker", ["--import", "tsx", "--conditions=react-server", "scripts/worker.ts"], env);
      worker = child;
      // The worker serves no HTTP: it is up once it stays up past its start (migrations, pg-boss).
      const deadline = Date.now() + 3_000;
      while (Date.now() < deadline) {
        if (exited(child)) throw new Error(`the worker exited with ${child.exitCode ?? child.signalCode} at start`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stopAll() {
      await Promise.all([...apps.values(), ...(worker ? [worker] : [])].map((c) => stop(c, "SIGTERM")));
      apps.clear();
      worker = undefined;
    },
  };
}
