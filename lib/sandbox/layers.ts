import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Where the sandbox's files are and which outer layers this host allows around the Deno process.
 * The Deno permission set is the boundary and is always on; the layers below are added when the
 * host has the tool and the privilege, probed once per server process (SandboxLayers says which).
 */
const ROOT = process.cwd();
export const DENO_BIN = path.join(ROOT, "node_modules/@deno/linux-x64-glibc/deno");
export const PYODIDE_DIR = path.join(ROOT, "node_modules/pyodide");
// Read from disk at run time, outside the Next.js bundle.
export const RUNNER_FILE = path.join(ROOT, "lib/sandbox/runner/runner.ts");

export interface SandboxLayers {
  /** `prlimit --fsize --core=0`: caps any file Deno writes in its private DENO_DIR. */
  prlimit: boolean;
  /** `unshare -n`: a network namespace with only a down loopback. */
  netns: boolean;
  /** `setpriv --reuid/--regid --clear-groups`: runs as an unprivileged uid (only when the server is root). */
  uid: number | null;
  /** `setpriv --pdeathsig KILL`: the child dies with the server even on SIGKILL (stdin EOF is the fallback). */
  pdeathsig: boolean;
  /**
   * cgroup v1 folders the server may create children in: each sandbox process gets its own memory
   * cgroup (a hard limit: the kernel kills the process, never the server) and pids cgroup (no
   * fork bombs, should a subprocess ever be possible). null where the host does not allow it.
   */
  cgroups: { memory: string | null; pids: string | null };
}

const FILE_SIZE_LIMIT = 32 * 1024 * 1024;

function works(cmd: string, args: string[]): boolean {
  const res = spawnSync(cmd, args, { stdio: "ignore", timeout: 5_000 });
  return res.status === 0;
}

let probed: SandboxLayers | undefined;

export function probeLayers(opts: { uid: number; gid: number }): SandboxLayers {
  if (probed) return probed;
  const isRoot = process.getuid?.() === 0;
  const setpriv = works("setpriv", ["--pdeathsig", "KILL", "--", "true"]);
  // The unprivileged user must be able to run Deno and read Pyodide and the runner (a checkout
  // under a 0700 home would not let it): else the sandbox keeps the server's uid.
  const dropUid = isRoot && setpriv && opts.uid >= 0 && opts.gid >= 0
    && works("setpriv", [`--reuid=${opts.uid}`, `--regid=${opts.gid}`, "--clear-groups", "--", "sh", "-c", 'test -x "$0" && test -r "$1" && test -r "$2"', DENO_BIN, path.join(PYODIDE_DIR, "pyodide.asm.wasm"), RUNNER_FILE]);
  probed = {
    prlimit: works("prlimit", [`--fsize=${FILE_SIZE_LIMIT}`, "--core=0", "--", "true"]),
    netns: works("unshare", ["-n", "--", "true"]),
    uid: dropUid ? opts.uid : null,
    pdeathsig: setpriv,
    cgroups: { memory: cgroupParent("memory"), pids: cgroupParent("pids") },
  };
  return probed;
}

/** The server's own cgroup v1 folder of a controller, if it can create a child there. */
function cgroupParent(controller: "memory" | "pids"): string | null {
  try {
    const line = fs.readFileSync("/proc/self/cgroup", "utf8").split("\n").find((l) => l.split(":")[1]?.split(",").includes(controller));
    if (!line) return null;
    const dir = path.join("/sys/fs/cgroup", controller, line.split(":")[2] ?? "/");
    const probe = path.join(dir, `cockpit-sandbox-probe-${process.pid}`);
    fs.mkdirSync(probe);
    fs.rmdirSync(probe);
    return dir;
  } catch {
    return null;
  }
}

const MAX_TASKS = 256;

/**
 * Moves a just-started child into cgroups of its own (it is still in the exec chain before Deno,
 * so nothing has been allocated yet). Returns the folders to remove once it has exited.
 */
function confine(layers: SandboxLayers, pid: number, memoryLimitBytes: number): string[] {
  const made: string[] = [];
  const join = (parent: string | null, limits: Record<string, string>) => {
    if (!parent) return;
    const dir = path.join(parent, `cockpit-sandbox-${pid}`);
    try {
      fs.mkdirSync(dir);
      made.push(dir);
      for (const [file, value] of Object.entries(limits)) fs.writeFileSync(path.join(dir, file), value);
      fs.writeFileSync(path.join(dir, "cgroup.procs"), String(pid));
    } catch {
      // The process keeps the other layers; the RSS watchdog and the WebAssembly cap still hold.
    }
  };
  join(layers.cgroups.memory, { "memory.limit_in_bytes": String(memoryLimitBytes) });
  join(layers.cgroups.pids, { "pids.max": String(MAX_TASKS) });
  return made;
}

/** The argv that starts one runner: outer layers first (each execs the next, so the pid is Deno's). */
export function runnerCommand(
  layers: SandboxLayers,
  opts: { gid: number; wasmMaxMb: number; stdoutMax: number; resultMax: number; snapshot?: string | "--make-snapshot" },
): string[] {
  const argv: string[] = [];
  if (layers.prlimit) argv.push("prlimit", `--fsize=${FILE_SIZE_LIMIT}`, "--core=0", "--");
  if (layers.netns) argv.push("unshare", "-n", "--");
  if (layers.pdeathsig || layers.uid !== null) {
    argv.push("setpriv");
    if (layers.uid !== null) argv.push(`--reuid=${layers.uid}`, `--regid=${opts.gid}`, "--clear-groups");
    // After the uid change: changing credentials clears the parent-death signal.
    if (layers.pdeathsig) argv.push("--pdeathsig", "KILL");
    argv.push("--");
  }
  // 64 KiB WebAssembly pages: Python's heap cap, which turns a huge allocation into MemoryError.
  const wasmPages = Math.floor((opts.wasmMaxMb * 1024 * 1024) / 65536);
  // --liftoff-only: Pyodide's WebAssembly stays in V8's baseline tier, never recompiled by TurboFan
  // in the background. Measured here (2 cores, load 11 to 14, boot from the snapshot + 50 calls +
  // 2.5 s idle, 7 pairs): 1.7 to 2.3 CPU-s in all instead of 2.5 to 3.2, 60 to 140 ms of CPU for the
  // first 50 calls instead of 530 to 640, 0 to 20 ms of CPU while idle after them instead of 30 to
  // 560 (the tier-up that the pool's idle-CPU watchdog must otherwise wait out), warm call p50 and a
  // CPU-bound call (sum of 300,000 squares, 280 to 380 ms against 310 to 460) no slower.
  argv.push(
    DENO_BIN, "run",
    "--no-prompt", "--no-config", "--no-lock", "--no-remote", "--no-npm", "--cached-only", "--deny-import",
    `--allow-read=${[PYODIDE_DIR, ...(opts.snapshot && opts.snapshot !== "--make-snapshot" ? [opts.snapshot] : [])].join(",")}`,
    `--v8-flags=--max-old-space-size=256,--wasm-max-mem-pages=${wasmPages},--liftoff-only`,
    RUNNER_FILE, PYODIDE_DIR, String(opts.stdoutMax), String(opts.resultMax),
    ...(opts.snapshot ? [opts.snapshot] : []),
  );
  return argv;
}

/**
 * Starts one runner with a private DENO_DIR and HOME (Deno writes caches there, and the Cache API
 * and localStorage, even without --allow-write) and an environment of only those: nothing of the
 * server's environment reaches the child. The directory is removed when the child exits.
 */
export function spawnRunner(layers: SandboxLayers, opts: Parameters<typeof runnerCommand>[1]): ChildProcess {
  const denoDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-sandbox-"));
  if (layers.uid !== null) fs.chownSync(denoDir, layers.uid, opts.gid);
  const [cmd, ...args] = runnerCommand(layers, opts);
  const child = spawn(cmd!, args, {
    stdio: ["pipe", "pipe", "pipe"],
    cwd: denoDir,
    env: { DENO_DIR: denoDir, HOME: denoDir, DENO_NO_UPDATE_CHECK: "1" } as unknown as NodeJS.ProcessEnv,
  });
  // Python's heap cap plus V8's heap (256 MiB) and Deno's own memory.
  const cgroupDirs = child.pid ? confine(layers, child.pid, (opts.wasmMaxMb + 512) * 1024 * 1024) : [];
  // Synchronously: a server or test worker that exits right after killing its pool must not leave it behind.
  let cleaned = false;
  const cleanup = () => {
    if (cleaned) return;
    cleaned = true;
    fs.rmSync(denoDir, { recursive: true, force: true });
    for (const dir of cgroupDirs) {
      try {
        fs.rmdirSync(dir);
      } catch {
        // Still busy for a moment after the exit on some kernels: retried once.
        setTimeout(() => fs.rmdir(dir, () => {}), 1000).unref();
      }
    }
  };
  child.on("exit", cleanup);
  child.on("error", () => {
    if (child.pid === undefined) cleanup();
  });
  return child;
}
