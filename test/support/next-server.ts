import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";

export interface RunningServer {
  url: string;
  port: number;
  /** The server's process (under WEB_CONCURRENCY > 1 the cluster primary). */
  pid: number;
  /** What the server wrote to stderr so far (also passed on to ours). */
  stderr: () => string;
  /** Everything the server wrote to stdout and stderr so far, interleaved as it arrived (capped at 64 MiB). */
  output: () => string;
  stop: () => Promise<void>;
  /** SIGKILL (a crash: no shutdown hooks run); resolves once the process is gone. */
  kill: () => Promise<void>;
}

const MAX_OUTPUT = 64 * 1024 * 1024;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/**
 * Starts the production build with the production server (scripts/server/main.mjs, as `npm start`)
 * on a free port (or `opts.port`: a restart in place of a server that died) and waits until it
 * answers. It binds where the server does by default (loopback) unless `env` sets HOST; a HOST
 * inherited from the shell is not passed on.
 */
export async function startNextServer(
  env: Record<string, string> = {},
  opts: { port?: number } = {},
): Promise<RunningServer> {
  const port = opts.port ?? (await freePort());
  const { HOST: _inherited, ...inherited } = process.env;
  const child: ChildProcess = spawn(process.execPath, ["scripts/server/main.mjs", "-p", String(port)], {
    env: { ...inherited, AUTH_TRUST_HOST: "1", NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let output = "";
  const capture = (chunk: Buffer) => {
    if (output.length < MAX_OUTPUT) output += chunk.toString("utf8");
  };
  child.stdout!.on("data", capture);
  child.stderr!.on("data", (chunk: Buffer) => {
    process.stderr.write(chunk);
    stderr = (stderr + chunk.toString("utf8")).slice(-65_536);
    capture(chunk);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error("server did not become healthy in 60 s");
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    port,
    pid: child.pid!,
    stderr: () => stderr,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
      }),
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
