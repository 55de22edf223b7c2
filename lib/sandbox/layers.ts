import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { checkoutRuntime, copyRuntime, RUNTIME_BASE_DIR, scratchDir, type SandboxRuntime } from "./runtime";

/**
 * Where the sandbox's files are and which outer layers the host allows. Deno's permissions are the
 * boundary and always on; the layers are added where tool and privilege exist, probed once per
 * process.
 */
export interface SandboxLayers {
  /** The Deno binary, Pyodide and the runner the processes start from (a root-owned copy when the checkout is unreadable to `uid`). */
  runtime: SandboxRuntime;
  /** `prlimit --fsize --core=0`: caps any file Deno writes in its private DENO_DIR. */
  prlimit: boolean;
  /** `unshare -n`: a network namespace with only a down loopback. */
  netns: boolean;
  /** `setpriv --reuid/--regid --clear-groups`: runs as an unprivileged uid (only when the server is root). */
  uid: number | null;
  /** `setpriv --pdeathsig KILL`: the child dies with the server even on SIGKILL (stdin EOF is the fallback). */
  pdeathsig: boolean;
  /**
   * cgroup v1 folders for a memory cgroup per process (the kernel kills it, never the server) and a
   * pids cgroup; null where the host does not allow it.
   */
  cgroups: { memory: string | null; pids: string | null; cpu: CpuCgroup | null };
  /** Each outer layer that is off on this host, and why (logged once at start). */
  off: Record<string, string>;
}

/** The folder sandbox processes get a cpu cgroup of their own under (v1: cpu.cfs_quota_us, v2: cpu.max). */
interface CpuCgroup {
  dir: string;
  version: 1 | 2;
}

export interface LayerOptions {
  uid: number;
  gid: number;
  /** The checkout to run from (default: the server's working directory). */
  checkoutDir?: string;
  /** Where a root server copies the runtime when the checkout is unreadable to `uid`. */
  runtimeBaseDir?: string;
}

const FILE_SIZE_LIMIT = 32 * 1024 * 1024;

function works(cmd: string, args: string[]): boolean {
  const res = spawnSync(cmd, args, { stdio: "ignore", timeout: 5_000 });
  return res.status === 0;
}

const probed = new Map<string, SandboxLayers>();

/** Probes once per server process (per options): each layer is on where the host allows it. */
export function probeLayers(opts: LayerOptions): SandboxLayers {
  const key = JSON.stringify(opts);
  let layers = probed.get(key);
  if (!layers) {
    layers = probe(opts);
    probed.set(key, layers);
  }
  return layers;
}

function probe(opts: LayerOptions): SandboxLayers {
  const off: Record<string, string> = {};
  const setpriv = works("setpriv", ["--pdeathsig", "KILL", "--", "true"]);
  if (!setpriv)
    off.pdeathsig = "setpriv is missing or fails: a sandbox process outlives a SIGKILLed server until its stdin closes";
  const { runtime, uid } = chooseRuntime(opts, setpriv, off);
  const prlimit = works("prlimit", [`--fsize=${FILE_SIZE_LIMIT}`, "--core=0", "--", "true"]);
  if (!prlimit) off.prlimit = "prlimit is missing or fails: no file size cap on the process";
  const netns = works("unshare", ["-n", "--", "true"]);
  if (!netns) off.netns = "unshare -n fails (needs root or user namespaces): no private network namespace";
  const cgroups = { memory: cgroupParent("memory"), pids: cgroupParent("pids"), cpu: cpuCgroupParent() };
  if (!cgroups.memory)
    off.memoryCgroup = "no writable cgroup v1 memory controller: the RSS watchdog and the WebAssembly cap remain";
  if (!cgroups.pids) off.pidsCgroup = "no writable cgroup v1 pids controller: no task cap";
  if (!cgroups.cpu)
    off.cpuCgroup = "no writable cpu controller (cgroup v1 cpu or v2 cpu.max): only the CPU account bounds a process";
  return { runtime, prlimit, netns, uid, pdeathsig: setpriv, cgroups, off };
}

/**
 * Drops to `uid` only when the server is root. A checkout `uid` cannot read is copied to a
 * root-owned, world-readable folder; if that fails too the sandbox keeps the server's uid (logged).
 */
function chooseRuntime(
  opts: LayerOptions,
  setpriv: boolean,
  off: Record<string, string>,
): { runtime: SandboxRuntime; uid: number | null } {
  const checkout = checkoutRuntime(opts.checkoutDir);
  if (process.getuid?.() !== 0) {
    off.uidDrop = "the server is not root: the sandbox runs as the server's own uid";
    return { runtime: checkout, uid: null };
  }
  if (opts.uid < 0 || opts.gid < 0) {
    off.uidDrop = "SANDBOX_UID or SANDBOX_GID is -1: the sandbox runs as root";
    return { runtime: checkout, uid: null };
  }
  if (!setpriv) {
    off.uidDrop = "setpriv is missing or fails: the sandbox runs as root";
    return { runtime: checkout, uid: null };
  }
  if (readableBy(checkout, opts)) return { runtime: checkout, uid: opts.uid };
  const base = opts.runtimeBaseDir ?? RUNTIME_BASE_DIR;
  let copy: SandboxRuntime;
  try {
    copy = copyRuntime(checkout, base);
  } catch (err) {
    off.uidDrop = `the checkout is unreadable to uid ${opts.uid} and copying the runtime to ${base} failed (${(err as Error).message}): the sandbox runs as root`;
    return { runtime: checkout, uid: null };
  }
  if (readableBy(copy, opts)) return { runtime: copy, uid: opts.uid };
  off.uidDrop = `the runtime copied to ${copy.copiedTo} is unreadable to uid ${opts.uid}: the sandbox runs as root`;
  return { runtime: checkout, uid: null };
}

function readableBy(rt: SandboxRuntime, opts: { uid: number; gid: number }): boolean {
  return works("setpriv", [
    `--reuid=${opts.uid}`,
    `--regid=${opts.gid}`,
    "--clear-groups",
    "--",
    "sh",
    "-c",
    'test -x "$0" && test -r "$1" && test -r "$2" && test -r "$3"',
    rt.denoBin,
    path.join(rt.pyodideDir, "pyodide.asm.wasm"),
    path.join(rt.pyodideDir, "python_stdlib.zip"),
    rt.runnerFile,
  ]);
}

/** The server's own cgroup v1 folder of a controller, if it can create a child there. */
function cgroupParent(controller: "memory" | "pids" | "cpu"): string | null {
  try {
    const line = fs
      .readFileSync("/proc/self/cgroup", "utf8")
      .split("\n")
      .find((l) => l.split(":")[1]?.split(",").includes(controller));
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

/** A cpu controller the server may make children in: cgroup v1's, else v2's where cpu is delegated. */
function cpuCgroupParent(): CpuCgroup | null {
  const v1 = cgroupParent("cpu");
  if (v1 && fs.existsSync(path.join(v1, "cpu.cfs_quota_us"))) return { dir: v1, version: 1 };
  try {
    const line = fs
      .readFileSync("/proc/self/cgroup", "utf8")
      .split("\n")
      .find((l) => l.startsWith("0::"));
    if (!line || !fs.existsSync("/sys/fs/cgroup/cgroup.controllers")) return null;
    const dir = path.join("/sys/fs/cgroup", line.slice(3));
    const probe = path.join(dir, `cockpit-sandbox-probe-${process.pid}`);
    fs.mkdirSync(probe);
    try {
      // cpu.max exists in a child only where the parent delegates the cpu controller.
      return fs.existsSync(path.join(probe, "cpu.max")) ? { dir, version: 2 } : null;
    } finally {
      fs.rmdirSync(probe);
    }
  } catch {
    return null;
  }
}

const MAX_TASKS = 256;
const CPU_PERIOD_US = 100_000;

/**
 * Moves a just-started child (still before Deno in its exec chain) into its own cgroups; returns
 * the folders to remove once it exits.
 */
function confine(layers: SandboxLayers, pid: number, memoryLimitBytes: number, cpuQuotaPercent: number): string[] {
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
  const cpu = layers.cgroups.cpu;
  if (cpu && cpuQuotaPercent > 0) {
    const quotaUs = String(Math.round((CPU_PERIOD_US * cpuQuotaPercent) / 100));
    join(
      cpu.dir,
      cpu.version === 1
        ? { "cpu.cfs_period_us": String(CPU_PERIOD_US), "cpu.cfs_quota_us": quotaUs }
        : { "cpu.max": `${quotaUs} ${CPU_PERIOD_US}` },
    );
  }
  return made;
}

/** The argv that starts one runner: outer layers first (each execs the next, so the pid is Deno's). */
export function runnerCommand(
  layers: SandboxLayers,
  opts: { gid: number; wasmMaxMb: number; stdoutMax: number; resultMax: number; snapshot?: string | "--make-snapshot" },
): string[] {
  const { denoBin, pyodideDir, runnerFile } = layers.runtime;
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
  // --liftoff-only: Pyodide's WebAssembly stays in V8's baseline tier, with no background TurboFan
  // recompiles that burn CPU the idle-CPU watchdog would count; calls are no slower.
  argv.push(
    denoBin,
    "run",
    "--no-prompt",
    "--no-config",
    "--no-lock",
    "--no-remote",
    "--no-npm",
    "--cached-only",
    "--deny-import",
    `--allow-read=${[pyodideDir, ...(opts.snapshot && opts.snapshot !== "--make-snapshot" ? [opts.snapshot] : [])].join(",")}`,
    `--v8-flags=--max-old-space-size=256,--wasm-max-mem-pages=${wasmPages},--liftoff-only`,
    runnerFile,
    pyodideDir,
    String(opts.stdoutMax),
    String(opts.resultMax),
    ...(opts.snapshot ? [opts.snapshot] : []),
  );
  return argv;
}

/**
 * Starts a runner with a private DENO_DIR and HOME (Deno writes caches there even without
 * --allow-write) and no other environment, so nothing of the server's reaches the child. The
 * directory is removed when it exits.
 */
export function spawnRunner(
  layers: SandboxLayers,
  opts: Parameters<typeof runnerCommand>[1] & { cpuQuotaPercent: number },
): ChildProcess {
  const denoDir = fs.mkdtempSync(path.join(scratchDir(layers.runtime), "cockpit-sandbox-"));
  if (layers.uid !== null) fs.chownSync(denoDir, layers.uid, opts.gid);
  const [cmd, ...args] = runnerCommand(layers, opts);
  const child = spawn(cmd!, args, {
    stdio: ["pipe", "pipe", "pipe"],
    cwd: denoDir,
    env: { DENO_DIR: denoDir, HOME: denoDir, DENO_NO_UPDATE_CHECK: "1" } as unknown as NodeJS.ProcessEnv,
  });
  // Python's heap cap plus V8's heap (256 MiB) and Deno's own memory.
  const cgroupDirs = child.pid
    ? confine(layers, child.pid, (opts.wasmMaxMb + 512) * 1024 * 1024, opts.cpuQuotaPercent)
    : [];
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
