/**
 * A server's `node --trace-gc` output lined up with a paced load (bench/lib/paced.ts): which slow
 * answers overlapped a garbage collection of the server's heap, and what the tail is without them.
 *
 * --trace-gc prints, at the end of each collection, the milliseconds since the process started
 * and the pause; a Mark-Compact also says how long its marking ran before that pause (incremental
 * steps on the main thread, concurrent marking on V8's helper threads, which on a 2-core box take
 * CPU from the main thread). The process start is taken as its spawn (bench/lib/server.ts writes
 * `# server <pid> spawned at <epoch ms>` first), a few tens of ms early: the windows are widened
 * by SLACK_MS to cover that. Only the main thread's isolate counts (the first to collect; each
 * line names its isolate): the jobs thread's and the CPU pool's heaps are collected without
 * pausing the requests, and their times count from their own start.
 */
import fs from "node:fs";
import { percentile } from "./load";

export interface GcEvent {
  kind: "Scavenge" | "Mark-Compact";
  /** Wall clock (epoch ms) the collection began: its marking, for a Mark-Compact. */
  fromWall: number;
  /** Wall clock (epoch ms) it ended. */
  toWall: number;
  pauseMs: number;
  markingMs: number;
}

const SLACK_MS = 50;

/** GC events of the server's log file (written with BENCH_SERVER_LOG and --trace-gc). */
export function readGcTrace(file: string): GcEvent[] {
  const all = fs.readFileSync(file, "utf8");
  // The last server started with this log (a file given by BENCH_SERVER_LOG is appended to).
  const at = all.lastIndexOf("# server ");
  if (at < 0) return [];
  const text = all.slice(at);
  const spawn = /^# server \d+ spawned at (\d+)/.exec(text);
  if (!spawn) return [];
  const spawned = Number(spawn[1]);
  const events: GcEvent[] = [];
  const line =
    /\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: (Scavenge|Mark-Compact)[^,]*, ([\d.]+) \/ [\d.]+ ms(?:.*?walltime since start of marking (\d+) ms)?/g;
  let mainIsolate: string | undefined;
  for (let m = line.exec(text); m; m = line.exec(text)) {
    const [, isolate, sinceStart, kind, pause, marking] = m;
    mainIsolate ??= isolate;
    if (isolate !== mainIsolate) continue;
    const end = spawned + Number(sinceStart);
    const pauseMs = Number(pause);
    const markingMs = marking ? Number(marking) : 0;
    events.push({
      kind: kind as GcEvent["kind"],
      fromWall: end - Math.max(pauseMs, markingMs),
      toWall: end,
      pauseMs,
      markingMs,
    });
  }
  return events;
}

export interface GcAttribution {
  /** Collections that ended within the load's span. */
  scavenges: number;
  markCompacts: number;
  scavengePauseMaxMs: number;
  markCompactPauseMaxMs: number;
  markingMaxMs: number;
  /** Answers slower than `slowMs`, and how many of them overlapped a Mark-Compact (marking or pause) or any collection. */
  slow: number;
  slowDuringMarkCompact: number;
  slowDuringAnyGc: number;
  /** p99 of the answers that overlapped no Mark-Compact. */
  p99WithoutMarkCompact: number;
}

function overlaps(from: number, to: number, e: GcEvent): boolean {
  return from <= e.toWall + SLACK_MS && to >= e.fromWall - SLACK_MS;
}

export function attributeToGc(
  samples: { dueWall: Float64Array; latency: Float64Array },
  events: GcEvent[],
  slowMs = 20,
): GcAttribution {
  const n = samples.dueWall.length;
  const spanFrom = n ? samples.dueWall[0]! : 0;
  let spanTo = spanFrom;
  for (let i = 0; i < n; i++) spanTo = Math.max(spanTo, samples.dueWall[i]! + samples.latency[i]!);
  const inSpan = events.filter((e) => e.toWall >= spanFrom && e.fromWall <= spanTo);
  const majors = inSpan.filter((e) => e.kind === "Mark-Compact");
  const minors = inSpan.filter((e) => e.kind === "Scavenge");
  let slow = 0;
  let slowMajor = 0;
  let slowAny = 0;
  const clean: number[] = [];
  for (let i = 0; i < n; i++) {
    const from = samples.dueWall[i]!;
    const latency = samples.latency[i]!;
    const to = from + latency;
    const duringMajor = majors.some((e) => overlaps(from, to, e));
    if (!duringMajor) clean.push(latency);
    if (latency <= slowMs) continue;
    slow++;
    if (duringMajor) slowMajor++;
    if (duringMajor || minors.some((e) => overlaps(from, to, e))) slowAny++;
  }
  clean.sort((a, b) => a - b);
  const max = (xs: number[]) => (xs.length ? Math.max(...xs) : 0);
  return {
    scavenges: minors.length,
    markCompacts: majors.length,
    scavengePauseMaxMs: max(minors.map((e) => e.pauseMs)),
    markCompactPauseMaxMs: max(majors.map((e) => e.pauseMs)),
    markingMaxMs: max(majors.map((e) => e.markingMs)),
    slow,
    slowDuringMarkCompact: slowMajor,
    slowDuringAnyGc: slowAny,
    p99WithoutMarkCompact: percentile(clean, 0.99),
  };
}
