// @ts-check
/**
 * `GET /metrics` (Prometheus text format) on its own listener, METRICS_PORT on HOST's address, for
 * the server script and the worker. Under node:cluster the primary serves it and sums its workers'
 * registries over IPC (prom-client's AggregatorRegistry); the workers only collect.
 */
import http from "node:http";
import { clusterRegistry, processMetrics } from "./families.mjs";
import { buildRoutes, routeMatcher } from "./http-routes.mjs";

const DEFAULT_METRICS_PORT = 9464;

/**
 * METRICS_PORT as a port: unset or empty means 9464, 0 means off; anything else stops the process
 * naming the variable (lib/env.ts holds the same rule for the app).
 * @param {string | undefined} value
 */
export function metricsPort(value) {
  if (value === undefined || value.trim() === "") return DEFAULT_METRICS_PORT;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`METRICS_PORT must be a port number from 0 (off) to 65535, got "${value}"`);
  return n;
}

/**
 * Listens for scrapes. Resolves with the server once bound, or with null when the port is in use
 * (another process of this host has it: the call goes on without metrics, said by `warn`); any
 * other failure rejects.
 * @param {{ port: number, hostname: string, warn: (message: string) => void, registry: { metrics(): Promise<string>, contentType: string } | { clusterMetrics(): Promise<string>, contentType: string } }} opts
 * @returns {Promise<http.Server | null>}
 */
async function listenForScrapes({ port, hostname, registry, warn }) {
  const collect = "clusterMetrics" in registry ? () => registry.clusterMetrics() : () => registry.metrics();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found: scrape GET /metrics\n");
      return;
    }
    collect().then(
      (text) => {
        res.writeHead(200, { "content-type": registry.contentType, "content-length": Buffer.byteLength(text) });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (err) => {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(`metrics collection failed: ${err instanceof Error ? err.message : String(err)}\n`);
      },
    );
  });
  await new Promise((resolve, reject) => {
    /** @param {Error} err */
    const fail = (err) =>
      reject(
        Object.assign(
          new Error(`METRICS_PORT ${port} on ${hostname}: ${err.message} (another port, or 0 to turn metrics off)`),
          { code: /** @type {NodeJS.ErrnoException} */ (err).code },
        ),
      );
    server.once("error", fail);
    server.listen(port, hostname, () => {
      server.off("error", fail);
      resolve(undefined);
    });
  }).catch((/** @type {Error & { code?: string }} */ err) => {
    if (err.code !== "EADDRINUSE") throw err;
    warn(`${err.message}: metrics are off in this process`);
    return null;
  });
  return server.listening ? server : null;
}

/** This process's families (its jobs thread's included) as a scrape source. */
function processRegistry() {
  const m = processMetrics();
  return { metrics: m.exposition, contentType: m.registry.contentType };
}

/** Methods kept as label values; any other is `other`. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** What a request answered with nothing is counted as (nginx's "client closed request"). */
const CLIENT_LEFT = 499;

/**
 * Records each request of the server script into the HTTP families, labelled with its route
 * pattern from the build in `dir`.
 * @param {string} dir
 */
function httpRecorder(dir) {
  const m = processMetrics();
  const routeOf = routeMatcher(buildRoutes(dir));
  return {
    /**
     * Called once the response closed (finished or abandoned).
     * @param {http.IncomingMessage} req
     * @param {http.ServerResponse} res
     * @param {number} startedMs performance.now() at the request's arrival
     */
    observe(req, res, startedMs) {
      const url = req.url ?? "";
      const q = url.indexOf("?");
      // A new object each time: prom-client keeps the labels object of a series' first sample.
      const labels = {
        route: routeOf(q === -1 ? url : url.slice(0, q)),
        method: req.method && METHODS.has(req.method) ? req.method : "other",
        status: res.headersSent ? res.statusCode : CLIENT_LEFT,
      };
      m.httpRequests.inc(labels);
      m.httpDuration.observe(labels, (performance.now() - startedMs) / 1000);
    },
  };
}

/**
 * This process's families served on `port` (0: off, null returned), for a process that is not
 * the server script (the worker). Resolves with the scrape URL, or null when off or the port is taken.
 * @param {{ port: number, hostname: string, warn: (message: string) => void }} opts
 * @returns {Promise<string | null>}
 */
export async function serveProcessMetrics({ port, hostname, warn }) {
  if (port === 0) return null;
  const server = await listenForScrapes({ port, hostname, warn, registry: processRegistry() });
  return server && scrapeUrl(server);
}

/** @param {http.Server} server */
function scrapeUrl(server) {
  const bound = /** @type {import("node:net").AddressInfo} */ (server.address());
  const shown = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
  return `http://${shown}:${bound.port}/metrics`;
}

/**
 * The server script's metrics, or null when `port` is 0. In a single process, and in the cluster
 * primary, it listens; the primary gets no recorder (its workers serve requests).
 * @param {{ port: number, hostname: string, dir: string, role: "single" | "primary" | "worker", say: (message: string) => void }} opts
 * @returns {Promise<ReturnType<typeof httpRecorder> | null>}
 */
export async function startServerMetrics({ port, hostname, dir, role, say }) {
  if (port === 0) return null;
  if (role === "worker") {
    processMetrics({ clusterWorker: true });
    return httpRecorder(dir);
  }
  const registry = role === "primary" ? clusterRegistry() : processRegistry();
  const server = await listenForScrapes({ port, hostname, registry, warn: say });
  if (!server) return null;
  say(`metrics on ${scrapeUrl(server)}`);
  return role === "primary" ? null : httpRecorder(dir);
}
