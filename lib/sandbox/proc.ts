import fs from "node:fs";

/** Kernel clock ticks per second for /proc/<pid>/stat (`getconf CLK_TCK`: 100 on Linux x86-64 and arm64). */
const CLK_TCK = 100;
const PAGE_SIZE = 4096;

/** CPU ms (user + system, all threads) from /proc/<pid>/stat: the host's count, never the child's; one-tick resolution; null when gone. */
export function readCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return null;
  }
  // Field 2 (comm) may contain spaces and parentheses: count fields after the last ')'.
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  return ((utime + stime) * 1000) / CLK_TCK;
}

/** Resident set size in bytes, from /proc/<pid>/statm; null when the process is gone. */
export function readRssBytes(pid: number): number | null {
  try {
    const statm = fs.readFileSync(`/proc/${pid}/statm`, "latin1").split(" ");
    return Number(statm[1]) * PAGE_SIZE;
  } catch {
    return null;
  }
}
