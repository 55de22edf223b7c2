import fs from "node:fs";
import path from "node:path";
import { spawnRunner, type SandboxLayers } from "./layers";
import { runtimeKey, scratchDir } from "./runtime";

const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;

/**
 * Makes a Pyodide memory snapshot with a runner started with --make-snapshot (no tool code runs
 * there), stored in a fresh mkdtemp folder no other user could plant in. Null on failure: processes
 * then boot slower, without it.
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
 * Snapshots are cached across processes under temp, one per Pyodide, Deno and runner version; the
 * folder is used only if it is ours and nobody else can write it (someone could have made it
 * first), else each process makes its own.
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
 * The snapshot this process uses, made once and shared by its pools, from the cache or made into it
 * (else a private folder removed at exit). Callers pass the same layers and ids every time.
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
