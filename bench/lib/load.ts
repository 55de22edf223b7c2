/**
 * autocannon wrapper. Latency percentiles are computed from every response's own timing (float ms)
 * because autocannon's histogram only has 1 ms resolution, too coarse for sub-millisecond targets;
 * autocannon's integer figures are kept alongside for reference.
 */
import autocannon from "autocannon";

export interface LoadOptions {
  url: string;
  connections: number;
  durationS: number;
  pipelining?: number;
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  headers?: Record<string, string>;
  body?: string;
  /** Per-request header sets used round-robin across all connections (e.g. one per API key). */
  rotateHeaders?: Record<string, string>[];
  /**
   * The path of each request of connection `i` (connections numbered 0.. in the order they start):
   * e.g. each connection on threads of its own, so no two requests in flight share a thread.
   */
  pathFor?: (connection: number) => string;
  /** The body of the `n`th request (n = 0, 1, … across all connections): e.g. a fresh idempotency key each. */
  bodyFor?: (n: number) => string;
  /** Stop after this many responses instead of after `durationS`. */
  amount?: number;
  timeoutS?: number;
}

export interface LoadResult {
  connections: number;
  pipelining: number;
  durationS: number;
  /** autocannon's mean of per-second request counts. */
  rps: number;
  /** Completed responses / wall duration. */
  rpsTotal: number;
  /** Latency of all responses, ms (exact, from per-response timings). */
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
  total: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** autocannon's own (1 ms resolution, 2xx only) percentiles. */
  autocannon: { p50: number; p99: number; rpsMean: number; rpsStddev: number; latencyMean: number };
}

/** The q-quantile of ascending values (nearest rank); NaN when empty. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[idx]!;
}

type Instance = autocannon.Instance & PromiseLike<autocannon.Result>;

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  let next = 0;
  let connections = 0;
  const rotation = opts.rotateHeaders;
  const pathFor = opts.pathFor;
  const bodyFor = opts.bodyFor;
  let bodies = 0;
  // autocannon deep-copies each connection's request entries but resets `context` before every
  // request: a plain object on the entry (`conn`) is the only per-connection state that lasts.
  const requests: autocannon.Request[] | undefined =
    rotation?.length || pathFor || bodyFor
      ? [
          {
            conn: { n: -1 },
            setupRequest: (req: autocannon.Request & { conn?: { n: number } }) => {
              const headers = rotation?.length
                ? { ...req.headers, ...rotation[next++ % rotation.length]! }
                : req.headers;
              const body = bodyFor ? { body: bodyFor(bodies++) } : {};
              if (!pathFor) return { ...req, headers, ...body };
              if (req.conn!.n < 0) req.conn!.n = connections++;
              return { ...req, headers, ...body, path: pathFor(req.conn!.n) };
            },
          } as autocannon.Request,
        ]
      : undefined;

  let samples = new Float64Array(1 << 16);
  let n = 0;
  const statusCodes: Record<string, number> = {};

  const instance = autocannon({
    url: opts.url,
    connections: opts.connections,
    pipelining: opts.pipelining ?? 1,
    duration: opts.durationS,
    ...(opts.amount ? { amount: opts.amount } : {}),
    method: opts.method ?? "GET",
    headers: opts.headers,
    body: opts.body,
    timeout: opts.timeoutS ?? 10,
    requests,
  }) as unknown as Instance;

  // Actual signature (autocannon 8): (client, statusCode, resBytes, responseTime); the typings omit client.
  instance.on("response", ((_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (n === samples.length) {
      const bigger = new Float64Array(samples.length * 2);
      bigger.set(samples);
      samples = bigger;
    }
    samples[n++] = responseTime;
    statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
  }) as never);

  const result = await instance;
  const sorted = samples.slice(0, n).sort();
  let sum = 0;
  for (const v of sorted) sum += v;

  return {
    connections: opts.connections,
    pipelining: opts.pipelining ?? 1,
    durationS: result.duration,
    rps: result.requests.mean,
    rpsTotal: n / result.duration,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    mean: n ? sum / n : Number.NaN,
    max: n ? sorted[n - 1]! : Number.NaN,
    total: n,
    ok2xx: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    autocannon: {
      p50: result.latency.p50,
      p99: result.latency.p99,
      rpsMean: result.requests.mean,
      rpsStddev: result.requests.stddev,
      latencyMean: result.latency.mean,
    },
  };
}
