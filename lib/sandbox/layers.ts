import { spawnSync } from "node:child_process";
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
  const dropUid = isRoot && setpriv && opts.uid >= 0 && opts.gid >= 0
    && works("setpriv", [`--reuid=${opts.uid}`, `--regid=${opts.gid}`, "--clear-groups", "--", "true"]);
  probed = {
    prlimit: works("prlimit", [`--fsize=${FILE_SIZE_LIMIT}`, "--core=0", "--", "true"]),
    netns: works("unshare", ["-n", "--", "true"]),
    uid: dropUid ? opts.uid : null,
    pdeathsig: setpriv,
  };
  return probed;
}

/** The argv that starts one runner: outer layers first (each execs the next, so the pid is Deno's). */
export function runnerCommand(layers: SandboxLayers, opts: { gid: number; wasmMaxMb: number; stdoutMax: number; resultMax: number }): string[] {
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
  argv.push(
    DENO_BIN, "run",
    "--no-prompt", "--no-config", "--no-lock", "--no-remote", "--no-npm", "--cached-only", "--deny-import",
    `--allow-read=${PYODIDE_DIR}`,
    `--v8-flags=--max-old-space-size=256,--wasm-max-mem-pages=${wasmPages}`,
    RUNNER_FILE, PYODIDE_DIR, String(opts.stdoutMax), String(opts.resultMax),
  );
  return argv;
}
