import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnRunner, type SandboxLayers } from "./layers";

const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;

/**
 * Makes a Pyodide memory snapshot for this server process: a runner started like the others, with
 * --make-snapshot, boots Pyodide (no tool code ever runs there) and writes the snapshot to stdout.
 * It is stored in a fresh directory (mkdtemp, so no other local user can have planted the file),
 * readable by the sandbox's uid and writable only by the server's. Resolves to null when it fails:
 * processes then boot without it (2 to 6 s instead of about 0.3 s).
 */
export function makeSnapshot(
  layers: SandboxLayers,
  opts: { gid: number; wasmMaxMb: number; timeoutMs: number },
): { done: Promise<{ file: string; dir: string } | null>; cancel: () => void } {
  const child = spawnRunner(layers, { ...opts, stdoutMax: 0, resultMax: 0, snapshot: "--make-snapshot" });
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
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-sandbox-snapshot-"));
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
 * The server process's snapshot, made once and shared by its pools; deleted when the process
 * exits. Callers pass the same layers and ids every time (one configuration per server process).
 */
export function sharedSnapshot(layers: SandboxLayers, opts: { gid: number; wasmMaxMb: number; timeoutMs: number }): Promise<Snapshot> {
  if (!shared) {
    const build = makeSnapshot(layers, opts);
    shared = build;
    void build.done.then((snap) => {
      if (snap) process.once("exit", () => fs.rmSync(snap.dir, { recursive: true, force: true }));
    });
  }
  return shared.done;
}

/** Stops a snapshot still being made (server shutdown). */
export function cancelSharedSnapshot(): void {
  shared?.cancel();
}
