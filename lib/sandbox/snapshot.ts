import fs from "node:fs";
import path from "node:path";
import { spawnRunner, type SandboxLayers } from "./layers";
import { runtimeKey, scratchDir } from "./runtime";

const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;

/**
 * Makes a Pyodide memory snapshot: a runner started like the others, with --make-snapshot, boots
 * Pyodide (no tool code ever runs there) and writes the snapshot to stdout. It is stored in a fresh
 * directory (mkdtemp, so no other local user can have planted the file), readable by the sandbox's
 * uid and writable only by the server's. Resolves to null when it fails: processes then boot
 * without it (2 to 6 s instead of about 0.3 s).
 * @internal
 */
export function makeSnapshot(
  layers: SandboxLayers,
  opts: { gid: number; wasmMaxMb: number; timeoutMs: number },
): { done: Promise<{ file: string; dir: string } | null>; cancel: () => void } {
  // Boot only, no tool code: one core's quota like any process.
  const child = spawnRunner(layers, {
    ...opts,
    stdoutMax: 0,
    resultMax: 0,
    snapshot: "--make-snapshot",
    cpuQuotaPercent: 100,
  });
  const done = new Promise<{ file: string; dir: string } | null>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs);
    child.stdout!.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_SNAPSHOT_BYTES) child.kill("SIGKILL");
      else chunks.push(chunk);
    });
    child.stderr!.resume();
    child.stdin!.on("error", () => {});
    child.on("error", () => {});
    // "close", not "exit": the snapshot is complete only once stdout has ended.
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0 || size === 0 || size > MAX_SNAPSHOT_BYTES) return resolve(null);
      try {
        const dir = fs.mkdtempSync(path.join(scratchDir(layers.runtime), "cockpit-sandbox-snapshot-"));
        fs.chmodSync(dir, 0o755);
        const file = path.join(dir, "pyodide.snapshot");
        fs.writeFileSync(file, Buffer.concat(chunks), { mode: 0o644 });
        resolve({ file, dir });
      } catch {
        resolve(null);
      }
    });
  });
  return { done, cancel: () => child.kill("SIGKILL") };
}

type Snapshot = { file: string; dir: string } | null;
let shared: { done: Promise<Snapshot>; cancel: () => void } | undefined;

/**
 * Snapshots are cached across server processes (and test workers) in a folder of the server's
 * uid under the temp dir, one file per Pyodide version, Deno version and runner source. The folder
 * is used only if it is a real folder owned by this uid that nobody else can write to (someone
 * could have made it first): else each process makes its own in a private folder.
 */
function trustedCacheDir(layers: SandboxLayers): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  const dir = path.join(scratchDir(layers.runtime), `cockpit-sandbox-cache-${uid}`);
  try {
    fs.mkdirSync(dir, { mode: 0o755 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") return null;
  }
  try {
    const st = fs.lstatSync(dir);
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0) return null;
    // Readable by the sandbox's uid whatever the umask was.
    fs.chmodSync(dir, 0o755);
    return dir;
  } catch {
    return null;
  }
}

function cachedSnapshot(dir: string, key: string): string | null {
  const file = path.join(dir, `${key}.snapshot`);
  try {
    const st = fs.lstatSync(file);
    return st.isFile() && st.uid === process.getuid?.() && st.size > 0 ? file : null;
  } catch {
    return null;
  }
}

/**
 * The snapshot this server process uses, made once and shared by its pools: from the cache when
 * it is there, else made and put in the cache (or, without a trusted cache, in a private folder
 * deleted when the process exits). Callers pass the same layers and ids every time.
 */
export function sharedSnapshot(
  layers: SandboxLayers,
  opts: { gid: number; wasmMaxMb: number; timeoutMs: number },
): Promise<Snapshot> {
  if (shared) return shared.done;
  let cacheDir: string | null = null;
  let key = "";
  try {
    cacheDir = trustedCacheDir(layers);
    key = runtimeKey(layers.runtime);
  } catch {
    cacheDir = null;
  }
  const hit = cacheDir ? cachedSnapshot(cacheDir, key) : null;
  if (hit && cacheDir) {
    shared = { done: Promise.resolve({ file: hit, dir: cacheDir }), cancel: () => {} };
    return shared.done;
  }
  const build = makeSnapshot(layers, opts);
  shared = {
    cancel: build.cancel,
    done: build.done.then((snap) => {
      if (!snap) return null;
      if (cacheDir) {
        try {
          // Rename is atomic: another process making the same snapshot at once just replaces it.
          const file = path.join(cacheDir, `${key}.snapshot`);
          const tmp = `${file}.${process.pid}.tmp`;
          fs.copyFileSync(snap.file, tmp);
          fs.chmodSync(tmp, 0o644);
          fs.renameSync(tmp, file);
          fs.rmSync(snap.dir, { recursive: true, force: true });
          return { file, dir: cacheDir };
        } catch {
          // Keep the private copy.
        }
      }
      process.once("exit", () => fs.rmSync(snap.dir, { recursive: true, force: true }));
      return snap;
    }),
  };
  return shared.done;
}

/** Stops a snapshot still being made (server shutdown). */
export function cancelSharedSnapshot(): void {
  shared?.cancel();
}
