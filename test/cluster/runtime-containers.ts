import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ClusterEnv, ClusterRuntime } from "./runtime";
import { waitForReady } from "./wait-ready";

/** `docker kill` then `docker wait`: past this the container is killed (it should exit well before). */
const STOP_TIMEOUT_MS = 60_000;
/** The uid the image runs as (Dockerfile): shared folders must be writable by it. */
const IMAGE_UID = 10001;
/** Variables naming folders every process must share (uploads, the generated secret): bind-mounted at the same path. */
const SHARED_DIR_VARS = ["DATA_DIR", "KNOWLEDGE_STORAGE_DIR"] as const;
const SIGNAL_NUMBER = { SIGTERM: 15, SIGKILL: 9 } as const;

export interface ContainerRuntime extends ClusterRuntime {
  /** The running container of app `index` (for `docker exec`), or undefined. */
  appContainer(index: number): string | undefined;
  /** The worker's container, or undefined. */
  workerContainer(): string | undefined;
  /** Where each container's output goes (`<name>.log`). */
  logDir: string;
}

/** Runs `docker args…` without blocking the event loop (servers in this process keep answering). */
export function dockerAsync(
  args: string[],
  timeoutMs = 120_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("docker", args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: stdout.trim(), stderr: stderr.trim() });
    });
  });
}

/**
 * The cluster on containers of `image`, each on the host's network (`--network host`: PostgreSQL,
 * Redis and the fake upstream stay on loopback, and each app listens on the PORT the caller gives;
 * METRICS_PORT is off unless given). Every container shares one host folder mounted at /data, and
 * any DATA_DIR or KNOWLEDGE_STORAGE_DIR given is mounted at its own path, as split web and worker
 * deployments share their uploads. Output goes to `<logDir>/<name>.log`.
 */
export function containerRuntime(
  image: string,
  logDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-container-logs-")),
): ContainerRuntime {
  const tag = `cockpit-${process.pid}-${randomBytes(3).toString("hex")}`;
  const sharedData = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-container-data-"));
  fs.chmodSync(sharedData, 0o777);
  const apps = new Map<number, string>();
  let worker: string | undefined;
  const started = new Set<string>();
  fs.mkdirSync(logDir, { recursive: true });

  const mounts = (env: ClusterEnv): string[] => {
    const args = ["-v", `${sharedData}:/data`];
    for (const name of SHARED_DIR_VARS) {
      const dir = env[name];
      if (!dir || !path.isAbsolute(dir)) continue;
      fs.mkdirSync(dir, { recursive: true });
      fs.chownSync(dir, IMAGE_UID, IMAGE_UID);
      args.push("-v", `${dir}:${dir}`);
    }
    return args;
  };

  const launch = async (name: string, env: ClusterEnv, command: string[] = []): Promise<string> => {
    const container = `${tag}-${name}`;
    // A container of the same name left by an earlier start of this slot.
    await dockerAsync(["rm", "-f", container]);
    const envArgs = Object.entries({ METRICS_PORT: "0", ...env }).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
    const run = await dockerAsync([
      "run",
      "-d",
      "--name",
      container,
      "--network",
      "host",
      ...mounts(env),
      ...envArgs,
      image,
      ...command,
    ]);
    if (run.code !== 0) throw new Error(`docker run of ${name} failed: ${run.stderr}`);
    started.add(container);
    // Follows the output to a file until the container stops.
    const log = fs.openSync(path.join(logDir, `${name}.log`), "a");
    spawn("docker", ["logs", "-f", container], { stdio: ["ignore", log, log] }).unref();
    fs.closeSync(log);
    return container;
  };

  const running = async (container: string): Promise<boolean> =>
    (await dockerAsync(["inspect", "-f", "{{.State.Running}}", container], 30_000)).stdout === "true";

  const stop = async (container: string, signal: keyof typeof SIGNAL_NUMBER): Promise<number | null> => {
    if (await running(container)) await dockerAsync(["kill", "--signal", signal, container], 30_000);
    let waited = await dockerAsync(["wait", container], STOP_TIMEOUT_MS);
    if (waited.code !== 0) {
      await dockerAsync(["kill", "--signal", "SIGKILL", container], 30_000);
      waited = await dockerAsync(["wait", container], 30_000);
    }
    await dockerAsync(["rm", "-f", container], 30_000);
    started.delete(container);
    const code = Number(waited.stdout);
    // As a process killed by the signal reports it: no exit code.
    return !Number.isInteger(code) || code === 128 + SIGNAL_NUMBER[signal] ? null : code;
  };

  return {
    logDir,
    appContainer: (index) => apps.get(index),
    workerContainer: () => worker,
    async startApp(index, env) {
      if (!env.PORT) throw new Error("startApp needs env.PORT");
      const container = await launch(`app-${index}`, env);
      apps.set(index, container);
      const url = `http://127.0.0.1:${env.PORT}`;
      await waitForReady(index, url, async () =>
        (await running(container)) ? null : `exited at start; its output: ${path.join(logDir, `app-${index}.log`)}`,
      );
      return { url };
    },
    async stopApp(index, signal) {
      const container = apps.get(index);
      if (!container) throw new Error(`app ${index} was not started`);
      const code = await stop(container, signal);
      apps.delete(index);
      return code;
    },
    async startWorker(env) {
      worker = await launch("worker", env, [
        "node",
        "--import",
        "tsx",
        "--conditions=react-server",
        "scripts/worker.ts",
      ]);
      // The worker serves no HTTP: it is up once it stays up past its start (migrations, pg-boss).
      const deadline = Date.now() + 3_000;
      while (Date.now() < deadline) {
        if (!(await running(worker))) throw new Error(`the worker exited at start; its output: ${logDir}/worker.log`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stopAll() {
      await Promise.all([...started].map((c) => stop(c, "SIGTERM")));
      apps.clear();
      worker = undefined;
      fs.rmSync(sharedData, { recursive: true, force: true });
    },
  };
}
