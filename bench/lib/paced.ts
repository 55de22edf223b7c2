/**
 * An open-loop load at a fixed rate: request i is due at start + i / rate whatever became of the
 * earlier ones, sent on at most `connections` keep-alive connections (more in flight wait for a
 * free one), and its latency runs from when it was DUE to the end of its response, so time spent
 * queued behind a slow answer counts (no coordinated omission). autocannon's `overallRate` sends
 * each second's quota in a burst at the top of the second, which is not a steady rate.
 */
import http from "node:http";
import { percentile } from "./load";

export interface PacedOptions {
  url: string;
  rate: number;
  durationS: number;
  connections: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface PacedResult {
  rate: number;
  sent: number;
  /** Answers received / the span from the first due time to the last answer. */
  achievedRate: number;
  p50: number;
  p99: number;
  max: number;
  statusCodes: Record<string, number>;
  errors: number;
  /** Each request's due time (wall clock, epoch ms) and latency (ms), in order: to line up with a server's trace. */
  samples: { dueWall: Float64Array; latency: Float64Array };
}

export async function runPaced(opts: PacedOptions): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.connections });
  const total = Math.round(opts.rate * opts.durationS);
  const latencies = new Float64Array(total);
  const statusCodes: Record<string, number> = {};
  let done = 0;
  let errors = 0;
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
  const headers = { ...opts.headers, ...(body ? { "content-length": String(body.length) } : {}) };
  const start = performance.now();
  let lastEnd = start;

  const send = (i: number, due: number) =>
    new Promise<void>((resolve) => {
      const req = http.request(opts.url, { method: opts.method ?? "GET", headers, agent }, (res) => {
        res.resume();
        res.on("end", () => {
          const end = performance.now();
          latencies[i] = end - due;
          lastEnd = Math.max(lastEnd, end);
          statusCodes[res.statusCode ?? 0] = (statusCodes[res.statusCode ?? 0] ?? 0) + 1;
          done++;
          resolve();
        });
      });
      req.on("error", () => {
        latencies[i] = performance.now() - due;
        errors++;
        resolve();
      });
      req.end(body);
    });

  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / opts.rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(send(i, due));
  }
  await Promise.all(inFlight);
  agent.destroy();
  const sorted = latencies.slice().sort();
  const startWall = Date.now() - (performance.now() - start);
  const dueWall = Float64Array.from({ length: total }, (_, i) => startWall + (i * 1000) / opts.rate);
  return {
    rate: opts.rate,
    sent: total,
    achievedRate: done / ((lastEnd - start) / 1000),
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    statusCodes,
    errors,
    samples: { dueWall, latency: latencies },
  };
}
