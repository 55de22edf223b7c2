/**
 * One benchmark measurement: warm up, then a timed autocannon run with CPU accounting for the
 * server process tree, the database processes and the load generator itself, peak server RSS, and
 * how busy the whole machine was (on a small box the three compete for the same cores).
 */
import os from "node:os";
import type { BenchDatabase } from "./db";
import { runLoad, type LoadOptions, type LoadResult } from "./load";
import {
  clockTicksPerSecond,
  cpuMsBetween,
  cpuTicksOf,
  otherProcesses,
  snapshotAll,
  sysTicksOf,
  machineBusyPct,
  machineCpu,
  processTree,
  type RssSampler,
} from "./proc";
import type { NextServer } from "./server";

export interface MeasureContext {
  server: NextServer;
  rss: RssSampler;
  db?: BenchDatabase;
}

export interface MeasureSpec extends Omit<LoadOptions, "url" | "durationS"> {
  label: string;
  /** Free-form variant tag, e.g. "pg rate limit" / "redis rate limit". */
  variant?: string;
  path: string;
  durationS: number;
  warmupS: number;
  /**
   * Before the warm-up, wait (up to maxWaitMs) until the rest of the machine keeps fewer than
   * `cores` cores busy, so other people's builds and tests disturb the numbers less.
   */
  quiet?: { cores: number; maxWaitMs: number };
}

export interface Measurement extends LoadResult {
  label: string;
  variant: string | undefined;
  path: string;
  warmupS: number;
  warmupRequests: number;
  /** CPU time of the server process tree during the measured run. */
  serverCpuMs: number;
  serverCpuMsPerReq: number;
  /** Server CPU as a share of one core. */
  serverCpuCores: number;
  /** Share of the server's CPU spent in the kernel (syscalls, loopback TCP). */
  serverSysShare: number;
  /** CPU of the database processes (see dbCpuScope) per request; null when not on this machine. */
  dbCpuMsPerReq: number | null;
  dbCpuScope: string | null;
  /** CPU of this (load generator) process per request. */
  loadgenCpuMsPerReq: number;
  peakRssMb: number;
  machineBusyPct: number | null;
  /**
   * Cores kept busy by everything else on the machine (busy CPU minus server, database and load
   * generator): other work competing for the cores. Above ~0.1 the numbers are disturbed.
   */
  otherCores: number | null;
  /** The busiest unrelated processes during the run (cores, by command name). */
  otherTop: { comm: string; cores: number }[];
  loadavg1Before: number;
  /** Time spent waiting for a quiet machine, and the busy cores seen when the wait ended. */
  quietWaitMs: number;
  busyCoresBeforeRun: number | null;
  serverPids: number[];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Cores busy on the whole machine over the next `ms`. */
export async function busyCores(ms = 1_000): Promise<number | null> {
  const a = machineCpu();
  await sleep(ms);
  const b = machineCpu();
  if (!a || !b) return null;
  return (b.busy - a.busy) / clockTicksPerSecond() / (ms / 1000);
}

/** Waits until fewer than `cores` cores are busy (server idle between runs), at most maxWaitMs. */
export async function waitForQuiet(
  cores: number,
  maxWaitMs: number,
): Promise<{ waitedMs: number; busy: number | null }> {
  const t0 = Date.now();
  let busy = await busyCores();
  while (busy !== null && busy >= cores && Date.now() - t0 < maxWaitMs) busy = await busyCores();
  return { waitedMs: Date.now() - t0, busy };
}

async function dbPids(db: BenchDatabase | undefined): Promise<{ pids: number[]; scope: string } | null> {
  if (!db) return null;
  if (db.postmasterPid) return { pids: processTree(db.postmasterPid), scope: "all embedded postgres processes" };
  try {
    const pids = await db.backendPids();
    return pids.length ? { pids, scope: `backends of ${db.name} + walwriter/checkpointer/bgwriter` } : null;
  } catch {
    return null;
  }
}

export async function measure(ctx: MeasureContext, spec: MeasureSpec): Promise<Measurement> {
  const { label, variant, path, warmupS, quiet, ...load } = spec;
  const url = `${ctx.server.baseUrl}${path}`;
  const q = quiet ? await waitForQuiet(quiet.cores, quiet.maxWaitMs) : { waitedMs: 0, busy: null };
  const warm = warmupS > 0 ? await runLoad({ ...load, url, durationS: warmupS }) : null;

  const loadavg1Before = os.loadavg()[0]!;
  const pidsBefore = processTree(ctx.server.pid);
  const db = await dbPids(ctx.db);
  const srvBefore = cpuTicksOf(pidsBefore);
  const srvSysBefore = sysTicksOf(pidsBefore);
  const dbBefore = db ? cpuTicksOf(db.pids) : null;
  const machineBefore = machineCpu();
  const allBefore = snapshotAll();
  const selfBefore = process.cpuUsage();
  ctx.rss.resetPeak();
  const t0 = performance.now();

  const result = await runLoad({ ...load, url });

  const wallMs = performance.now() - t0;
  const self = process.cpuUsage(selfBefore);
  const machineAfter = machineCpu();
  const allAfter = snapshotAll();
  const pidsAfter = [...new Set([...pidsBefore, ...processTree(ctx.server.pid)])];
  const srvAfter = cpuTicksOf(pidsAfter);
  const srvSysAfter = sysTicksOf(pidsAfter);
  // Re-list: processes started during the run (autovacuum workers, new pool connections) count from zero.
  const dbLater = db ? await dbPids(ctx.db) : null;
  if (db && dbLater) db.pids = [...new Set([...db.pids, ...dbLater.pids])];
  const dbAfter = db ? cpuTicksOf(db.pids) : null;
  const ours = new Set([...pidsAfter, ...(db?.pids ?? []), process.pid]);
  ctx.rss.sample();

  const reqs = Math.max(1, result.total);
  const serverCpuMs = cpuMsBetween(srvBefore, srvAfter);
  const dbCpuMs = db && dbBefore && dbAfter ? cpuMsBetween(dbBefore, dbAfter) : null;
  const selfCpuMs = (self.user + self.system) / 1000;
  const busyMs =
    machineBefore && machineAfter ? ((machineAfter.busy - machineBefore.busy) / clockTicksPerSecond()) * 1000 : null;
  return {
    label,
    variant,
    path,
    warmupS,
    warmupRequests: warm?.total ?? 0,
    ...result,
    serverCpuMs,
    serverCpuMsPerReq: serverCpuMs / reqs,
    serverCpuCores: serverCpuMs / wallMs,
    serverSysShare: serverCpuMs > 0 ? cpuMsBetween(srvSysBefore, srvSysAfter) / serverCpuMs : 0,
    dbCpuMsPerReq: dbCpuMs === null ? null : dbCpuMs / reqs,
    dbCpuScope: db?.scope ?? null,
    loadgenCpuMsPerReq: selfCpuMs / reqs,
    peakRssMb: ctx.rss.peakMb(),
    machineBusyPct: machineBusyPct(machineBefore, machineAfter),
    otherTop: otherProcesses(allBefore, allAfter, ours, wallMs),
    otherCores: busyMs === null ? null : Math.max(0, busyMs - serverCpuMs - (dbCpuMs ?? 0) - selfCpuMs) / wallMs,
    loadavg1Before,
    quietWaitMs: q.waitedMs,
    busyCoresBeforeRun: q.busy,
    serverPids: pidsAfter,
  };
}
