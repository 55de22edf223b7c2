import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The files a runner needs: the Deno binary, Pyodide's folder and the runner script. */
export interface SandboxRuntime {
  denoBin: string;
  pyodideDir: string;
  runnerFile: string;
  /** The root-owned copy's folder, or null when the checkout's files are used in place. */
  copiedTo: string | null;
}

/** Where a root server keeps the copy the sandbox's uid can read (as db/embedded.ts does for the database). */
export const RUNTIME_BASE_DIR = "/var/lib/cockpit-gateway/sandbox";
const COMPLETE_MARKER = ".complete";

/** The runtime as it sits in a checkout (the server's working directory by default). */
export function checkoutRuntime(root: string = process.cwd()): SandboxRuntime {
  return {
    denoBin: path.join(root, "node_modules/@deno/linux-x64-glibc/deno"),
    pyodideDir: path.join(root, "node_modules/pyodide"),
    // Read from disk at run time, outside the Next.js bundle.
    runnerFile: path.join(root, "lib/sandbox/runner/runner.ts"),
    copiedTo: null,
  };
}

/** Runners' private folders and the snapshot cache: next to a copied runtime (temp may be unreadable to the uid), else temp. */
export function scratchDir(rt: SandboxRuntime): string {
  return rt.copiedTo ? path.dirname(rt.copiedTo) : os.tmpdir();
}

/** Names a runtime by its versions and the runner's source: a new build gets a new copy. */
export function runtimeKey(rt: SandboxRuntime): string {
  const hash = createHash("sha256");
  for (const file of [
    rt.runnerFile,
    path.join(rt.pyodideDir, "package.json"),
    path.join(path.dirname(rt.denoBin), "package.json"),
  ]) {
    // Read at run time from the checkout; not a file for the bundle to trace.
    hash.update(fs.readFileSync(/* turbopackIgnore: true */ file));
  }
  hash.update(String(fs.statSync(rt.denoBin).size));
  return hash.digest("hex").slice(0, 32);
}

/** Root-writable only, under root-owned folders nobody else can write (or sticky, like /tmp): no one can swap a file in. */
function rootOnly(dir: string): boolean {
  for (let d = dir; ; d = path.dirname(d)) {
    const st = fs.lstatSync(d);
    const othersWrite = (st.mode & 0o022) !== 0;
    const sticky = (st.mode & 0o1000) !== 0;
    if (!st.isDirectory() || st.uid !== 0 || (othersWrite && (d === dir || !sticky))) return false;
    if (d === path.dirname(d)) return true;
  }
}

/**
 * Copies `rt` to `<baseDir>/<key>/` root-owned and world-readable, built in a temporary folder and
 * renamed, so a copy is whole or absent; a whole copy is reused. Root only; throws when it cannot.
 */
export function copyRuntime(rt: SandboxRuntime, baseDir: string = RUNTIME_BASE_DIR): SandboxRuntime {
  fs.mkdirSync(baseDir, { recursive: true, mode: 0o755 });
  if (!rootOnly(baseDir)) throw new Error(`${baseDir} (or a folder above it) is writable by a user other than root`);
  fs.chmodSync(baseDir, 0o755);
  const dir = path.join(/*turbopackIgnore: true*/ baseDir, runtimeKey(rt));
  const copied = (at: string): SandboxRuntime => ({
    denoBin: path.join(at, "deno"),
    pyodideDir: path.join(at, "pyodide"),
    runnerFile: path.join(at, "runner.ts"),
    copiedTo: at,
  });
  if (fs.existsSync(path.join(dir, COMPLETE_MARKER))) return copied(dir);
  const tmp = fs.mkdtempSync(path.join(baseDir, ".tmp-"));
  try {
    const target = copied(tmp);
    fs.copyFileSync(rt.denoBin, target.denoBin);
    fs.copyFileSync(rt.runnerFile, target.runnerFile);
    fs.cpSync(rt.pyodideDir, target.pyodideDir, { recursive: true, dereference: true });
    openUp(tmp);
    fs.chmodSync(target.denoBin, 0o755);
    fs.writeFileSync(path.join(tmp, COMPLETE_MARKER), "", { mode: 0o644 });
    try {
      fs.renameSync(tmp, dir);
    } catch (err) {
      // Another server process renamed its copy into place first: use that one.
      if (!fs.existsSync(path.join(dir, COMPLETE_MARKER))) throw err;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return copied(dir);
}

/** 0755 folders, 0644 files, owned by root, under `dir`. */
function openUp(dir: string): void {
  fs.chownSync(dir, 0, 0);
  fs.chmodSync(dir, 0o755);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) openUp(p);
    else {
      fs.chownSync(p, 0, 0);
      fs.chmodSync(p, 0o644);
    }
  }
}
