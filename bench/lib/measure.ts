/**
 * One benchmark measurement: warm up, then a timed autocannon run with CPU accounting for the
 * server process tree, the database processes and the load generator itself, peak server RSS, and
 * how busy the whole machine was (on a small box the three compete for the same cores).
 */
import os from "node:os";
import type { BenchDatabase } from "./db";
import { runLoad, type LoadOptions, type LoadResult } from "./load";
import { cpuMsBetween, cpuTicksOf, machineBusyPct, machineCpu, processTree, type RssSampler } from "./proc";
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
}

export interface Measurement extends LoadResult {
  label: string;
  variant: string | undefined;
  path: string;
  warmupS: number;
  /** CPU time of the server process tree during the measured run. */
  serverCpuMs: number;
  serverCpuMsPerReq: number;
  /** Server CPU as a share of one core. */
  serverCpuCores: number;
  /** CPU of the database processes (see dbCpuScope) per request; null when not on this machine. */
  dbCpuMsPerReq: number | null;
  dbCpuScope: string | null;
  /** CPU of this (load generator) process per request. */
  loadgenCpuMsPerReq: number;
  peakRssMb: number;
  machineBusyPct: number | null;
  loadavg1Before: number;
  serverPids: number[];
}

async function dbPids(db: BenchDatabase | undefined): Promise<{ pids: number[]; scope: string } | null> {
  if (!db) return null;
  if (db.postmasterPid) return { pids: processTree(db.postmasterPid), scope: "all embedded postgres processes" };
  try {
    const pids = await db.backendPids();
    return pids.length ? { pids, scope: `backends connected to ${db.name} (excl. WAL writer etc.)` } : null;
  } catch {
    return null;
  }
}

export async function measure(ctx: MeasureContext, spec: MeasureSpec): Promise<Measurement> {
  const { label, variant, path, warmupS, ...load } = spec;
  const url = `${ctx.server.baseUrl}${path}`;
  if (warmupS > 0) await runLoad({ ...load, url, durationS: warmupS });

  const loadavg1Before = os.loadavg()[0]!;
  const pidsBefore = processTree(ctx.server.pid);
  const db = await dbPids(ctx.db);
  const srvBefore = cpuTicksOf(pidsBefore);
  const dbBefore = db ? cpuTicksOf(db.pids) : null;
  const machineBefore = machineCpu();
  const selfBefore = process.cpuUsage();
  ctx.rss.resetPeak();
  const t0 = performance.now();

  const result = await runLoad({ ...load, url });

  const wallMs = performance.now() - t0;
  const self = process.cpuUsage(selfBefore);
  const machineAfter = machineCpu();
  const pidsAfter = [...new Set([...pidsBefore, ...processTree(ctx.server.pid)])];
  const srvAfter = cpuTicksOf(pidsAfter);
  const dbAfter = db ? cpuTicksOf(db.pids) : null;
  ctx.rss.sample();

  const reqs = Math.max(1, result.total);
  const serverCpuMs = cpuMsBetween(srvBefore, srvAfter);
  return {
    label,
    variant,
    path,
    warmupS,
    ...result,
    serverCpuMs,
    serverCpuMsPerReq: serverCpuMs / reqs,
    serverCpuCores: serverCpuMs / wallMs,
    dbCpuMsPerReq: db && dbBefore && dbAfter ? cpuMsBetween(dbBefore, dbAfter) / reqs : null,
    dbCpuScope: db?.scope ?? null,
    loadgenCpuMsPerReq: (self.user + self.system) / 1000 / reqs,
    peakRssMb: ctx.rss.peakMb(),
    machineBusyPct: machineBusyPct(machineBefore, machineAfter),
    loadavg1Before,
    serverPids: pidsAfter,
  };
}
