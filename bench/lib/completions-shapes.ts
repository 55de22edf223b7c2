/** Result and target shapes of bench/completions.ts, shared with bench/runs.ts (which it imports). */
import type { BenchDatabase } from "./db";
import type { LoadResult } from "./load";
import type { PgProxy } from "./pg-proxy";
import type { RssSampler } from "./proc";
import type { Service } from "./service";

export type TargetId = "direct" | "ours" | "routed" | "peer";
export type Mode = "json" | "stream";

export interface Row extends LoadResult {
  target: TargetId;
  label: string;
  mode: Mode;
  warmupS: number;
  /** CPU of the gateway process tree per response (null for direct). */
  gatewayCpuMsPerReq: number | null;
  gatewayCpuCores: number | null;
  /** Share of the gateway's CPU spent in the kernel (stime): syscalls, loopback TCP. */
  gatewaySysShare: number | null;
  /** Write system calls of the gateway process tree per response (socket writes to client, upstream, database). */
  gatewayWritesPerReq: number | null;
  /** CPU of the fake upstream process per response. */
  upstreamCpuMsPerReq: number;
  /** CPU of the PostgreSQL processes serving the bench database per response (ours only). */
  dbCpuMsPerReq: number | null;
  loadgenCpuMsPerReq: number;
  /** Peak RSS of the gateway process tree during the measured run (null for direct). */
  peakRssMb: number | null;
  upstreamPeakRssMb: number;
  /** Requests the fake upstream received during the measured run. */
  upstreamRequests: number;
  machineBusyPct: number | null;
  otherCores: number | null;
  otherTop: { comm: string; cores: number }[];
  quietWaitMs: number;
  /** CLOCK_MONOTONIC ns (process.hrtime.bigint) at the start and end of the measured run. */
  windowNs: [string, string];
  /** Which of the bench's repetitions measured it (1 …). */
  repetition?: number;
  /** --db-proxy: database traffic per response. */
  db?: {
    statementsPerReq: number;
    syncsPerReq: number;
    writesPerReq: number;
    waitMsPerReq: number;
    busyMsPerReq: number;
    byStatementPerReq: { sql: string; perReq: number; waitMsPerReq: number }[];
  };
}

export interface Ttfb {
  target: TargetId;
  label: string;
  n: number;
  ok: number;
  failures: number;
  firstFailure?: string;
  /** Request start → first body byte. */
  p50: number;
  p99: number;
  mean: number;
  /** Request start → response headers. */
  headersP50: number;
  /** Request start → end of the stream. */
  totalP50: number;
  repetition?: number;
}

export interface Verdict {
  name: string;
  value: number | null;
  unit: string;
  target: string;
  /** The same figure for the peer, for context. */
  peer?: number | null;
  result: "PASS" | "MISS" | "n/a";
  disturbed: boolean;
}

export interface Target {
  id: TargetId;
  label: string;
  baseUrl: string;
  headers: Record<string, string>;
  rotate?: Record<string, string>[];
  /** Root pid of the gateway (null: direct). */
  pid: number | null;
  rss: RssSampler | null;
  db?: BenchDatabase;
  proxy?: PgProxy;
}

export interface Upstream {
  service: Service;
  url: string;
  openaiBase: string;
  control: string;
  rss: RssSampler;
  stats(): Promise<{ total: number; byPath: Record<string, number>; aborted: number }>;
}
