/**
 * Child processes a benchmark starts besides `next start` (a fake upstream, a peer gateway): each
 * in its own process group, log tail kept, stopped by its pid (SIGTERM to the group, SIGKILL after a
 * grace period), and SIGKILLed when the bench process exits for any reason.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { processTree } from "./proc";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Service {
  name: string;
  pid: number;
  logTail(lines?: number): string;
  exited(): string | undefined;
  /** Resolves with the first stdout line matching `re` (or rejects when the process exits first). */
  waitForLine(re: RegExp, timeoutMs: number): Promise<string>;
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of live) killGroup(child.pid, "SIGKILL");
});

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

function isGone(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return true;
  }
}

export function startService(
  name: string,
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): Service {
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env,
    // stdin stays an open pipe: a service can watch it to exit when the bench dies.
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  live.add(child);
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  let partial = "";
  child.stdout!.on("data", (d: Buffer) => {
    partial += d.toString("utf8");
    const parts = partial.split("\n");
    partial = parts.pop() ?? "";
    for (const l of parts) {
      if (l.trim()) lines.push(l);
      for (const w of [...waiters]) {
        if (w.re.test(l)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(l);
        }
      }
    }
    if (lines.length > 400) lines.splice(0, lines.length - 400);
  });
  child.stderr!.on("data", (d: Buffer) => {
    for (const l of d.toString("utf8").split("\n")) if (l.trim()) lines.push(l);
    if (lines.length > 400) lines.splice(0, lines.length - 400);
  });
  child.stdin!.on("error", () => {});
  let exitInfo: string | undefined;
  const exitedP = new Promise<void>((resolve) =>
    child.on("exit", (code, signal) => {
      exitInfo = `exit ${code ?? signal}`;
      live.delete(child);
      resolve();
    }),
  );
  child.on("error", (err) => {
    exitInfo = `spawn error: ${err.message}`;
    live.delete(child);
  });
  const pid = child.pid!;
  return {
    name,
    pid,
    logTail: (n = 30) => lines.slice(-n).join("\n"),
    exited: () => exitInfo,
    waitForLine(re, timeoutMs) {
      const seen = lines.find((l) => re.test(l));
      if (seen) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        const w = { re, resolve: (l: string) => (clearTimeout(timer), resolve(l)) };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`${name}: no line matching ${re} after ${timeoutMs} ms\n${lines.slice(-20).join("\n")}`));
        }, timeoutMs);
        waiters.push(w);
        void exitedP.then(() => {
          clearTimeout(timer);
          reject(new Error(`${name} exited (${exitInfo}) before printing ${re}\n${lines.slice(-20).join("\n")}`));
        });
      });
    },
    async stop(graceMs = 5_000) {
      const tree = processTree(pid);
      if (exitInfo === undefined) {
        killGroup(pid, "SIGTERM");
        const timedOut = await Promise.race([exitedP.then(() => false), sleep(graceMs).then(() => true)]);
        if (timedOut) killGroup(pid, "SIGKILL");
        await exitedP;
      }
      for (let i = 0; i < 50; i++) {
        const left = tree.filter((p) => !isGone(p));
        if (left.length === 0) return;
        if (i === 20) for (const p of left) killGroup(p, "SIGKILL");
        await sleep(100);
      }
      throw new Error(`${name}: processes still alive after stop: ${tree.join(", ")}`);
    },
  };
}
