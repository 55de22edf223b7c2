#!/usr/bin/env node
// @ts-check
/**
 * The production HTTP server: `node [flags] scripts/server/main.mjs [-p port] [-H host]` (else PORT
 * and HOST), run by `npm start`, the benchmarks and the HTTP and browser tests: the `.next` build
 * through Next.js's custom-server API, plus:
 * - the fast lane (fast-lane.mjs) for POST /v1/chat/completions, skipping Next.js's routing (FAST_LANE=0: off),
 *   and for the widget script, whose compressed body needs its Content-Encoding kept;
 * - WEB_CONCURRENCY worker processes (default 1) sharing the port through node:cluster; all shared state works across
 *   processes.
 * SIGINT/SIGTERM: stop accepting, let requests finish for up to SHUTDOWN_GRACE_MS, cancel the rest
 * as a client cancel would (billed, released, client told), and exit.
 */
import cluster from "node:cluster";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";
import { dedupeServerChunks } from "./dedupe-chunks.mjs";
import { fastHandlerFor, loadFastRoutes, refuseMalformedPath, serveFetch } from "./fast-lane.mjs";
import { idleAware, IdleAsyncLocalStorage, installIdleAsyncLocalStorage } from "./idle-async-context.mjs";
import { redactSecrets } from "../../lib/log-redact.mjs";
import { startTracing } from "../../lib/observability/tracing/start.mjs";
import { graceEnd, requestPeer, serverInstance, shutdownHooks } from "../../lib/process-channels.mjs";
import { metricsPort, startServerMetrics } from "../../lib/observability/metrics/serve.mjs";
import { buildJobsThread } from "./jobs-thread-build.mjs";
import { workerCount } from "./worker-count.mjs";

/** Hot routes served by the fast lane (exact paths). Their handlers must not use Next.js request APIs. */
const FAST_ROUTES = [
  { method: "POST", path: "/v1/chat/completions" },
  { method: "POST", path: "/v1/threads/[threadId]/runs" },
  { method: "POST", path: "/v1/responses" },
  { method: "POST", path: "/v1/messages" },
  { method: "POST", path: "/v1/public/triggers/[companyId]/[secret]" },
  // Here for its Content-Encoding, which Next.js would drop (the widget script is sent compressed).
  { method: "GET", path: "/v1/sdk/sdui-embed.js" },
];

const DEFAULT_HOST = "127.0.0.1";

/** A positive integer from the environment, else `fallback`; anything else stops the server naming the variable. @param {string} name @param {number} fallback */
function positiveInt(name, fallback) {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`${name} must be a positive integer (milliseconds), got "${value}"`);
  return n;
}
/**
 * Deadlines for the request headers and the whole request (then Node answers 408 and closes):
 * Node's defaults let slow-body sockets sit for minutes. Responses, streams included, are not
 * limited.
 */
const REQUEST_TIMEOUT_MS = positiveInt("REQUEST_TIMEOUT_MS", 60_000);
const HEADERS_TIMEOUT_MS = Math.min(positiveInt("HEADERS_TIMEOUT_MS", 20_000), REQUEST_TIMEOUT_MS);
const SHUTDOWN_GRACE_MS = positiveInt("SHUTDOWN_GRACE_MS", 30_000);
const METRICS_PORT = metricsPort(process.env.METRICS_PORT);
/** How long the calls cancelled at the grace's end may take to store and bill what they generated. */
const SHUTDOWN_CANCEL_MS = 5_000;
/** How long the app's shutdown hooks (lib/shutdown.ts: releasing credit leases) may take. */
const SHUTDOWN_HOOKS_MS = 3_000;
const RESTART_DELAY_MS = 1_000;
const EARLY_DEATH_MS = 10_000;
const MAX_EARLY_DEATHS = 5;
/** Set by the cluster primary for each worker: its slot (0 … count-1), which a restarted worker takes over. */
const CLUSTER_SLOT_ENV = "COCKPIT_CLUSTER_SLOT";

/**
 * The socket's remote address of a request Next.js serves, for the app (lib/net/client-ip.ts):
 * route handlers never see the socket, and X-Forwarded-For is the client's to write. The fast lane
 * passes it with the request instead (lanePeers), so its calls run with no store enabled.
 * @type {IdleAsyncLocalStorage<{ address: string | null }>}
 */
const peer = new IdleAsyncLocalStorage();
requestPeer.set(peer);

// Everything this process prints passes through the app's log redaction (lib/log-redact.mjs).
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream);
  stream.write = /** @type {typeof stream.write} */ (
    (/** @type {any} */ chunk, /** @type {any[]} */ ...rest) =>
      write(
        typeof chunk === "string"
          ? redactSecrets(chunk)
          : Buffer.isBuffer(chunk)
            ? redactSecrets(chunk.toString("utf8"))
            : chunk,
        ...rest,
      )
  );
}

/** @param {string} message */
const say = (message) => process.stderr.write(`[server ${process.pid}] ${message}\n`);

function options() {
  const { values } = parseArgs({
    options: { port: { type: "string", short: "p" }, hostname: { type: "string", short: "H" } },
    strict: true,
  });
  const port = Number(values.port ?? process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`invalid port "${values.port ?? process.env.PORT}"`);
  // Loopback unless told otherwise: a server on every interface is reachable from the network
  // without the reverse proxy in front of it (containers set HOST=0.0.0.0).
  const hostname = values.hostname || process.env.HOST || DEFAULT_HOST;
  return { port, hostname };
}

/** One server process: Next.js plus the fast lane on one listening socket (shared under cluster). */
async function serve() {
  const { port, hostname } = options();
  const tracing = await startTracing();
  const role = cluster.isWorker ? "worker" : "single";
  const metrics = await startServerMetrics({ port: METRICS_PORT, hostname, dir: process.cwd(), role, say });
  // next() reads NODE_ENV while loading; `next start` forces production the same way.
  Object.assign(process.env, { NODE_ENV: "production" });
  const dir = process.cwd();
  dedupeServerChunks(path.join(dir, ".next", "server", "chunks"));
  installIdleAsyncLocalStorage();
  const next = createRequire(path.join(dir, "package.json"))("next");
  const app = next({ dev: false, dir, hostname, port });
  await app.prepare();
  const handle = app.getRequestHandler();
  const serveNext = idleAware((req, res) => peer.run({ address: req.socket.remoteAddress ?? null }, handle, req, res));
  const origin = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
  const fast = process.env.FAST_LANE === "0" ? new Map() : await loadFastRoutes(dir, FAST_ROUTES, say);

  let inFlight = 0;
  let onIdle = () => {};
  const deadlines = {
    requestTimeout: REQUEST_TIMEOUT_MS,
    headersTimeout: HEADERS_TIMEOUT_MS,
    connectionsCheckingInterval: 1000,
  };
  /** @type {(req: http.IncomingMessage, res: http.ServerResponse, handler: ReturnType<typeof fastHandlerFor>) => void} */
  const serveRequest = (req, res, handler) => {
    if (handler)
      serveFetch(handler, req, res, origin, (err) =>
        say(`fast lane: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
      );
    else serveNext(req, res);
  };
  const dispatch = tracing ? tracing.traceRequests(serveRequest, { dir, hostname, port }) : serveRequest;
  const server = http.createServer(deadlines, (req, res) => {
    inFlight++;
    const started = metrics ? performance.now() : 0;
    res.once("close", () => {
      metrics?.observe(req, res, started);
      if (--inFlight === 0) onIdle();
    });
    if (refuseMalformedPath(req, res)) return;
    dispatch(req, res, fastHandlerFor(fast, req));
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => resolve(undefined));
  });
  const bound = /** @type {import("node:net").AddressInfo} */ (server.address());
  // Who this server is for its credit leases: a server restarted on this address, port and cluster
  // slot frees the leases of the one it replaces.
  serverInstance.set({ address: bound.address, port: bound.port, slot: Number(process.env[CLUSTER_SLOT_ENV] ?? 0) });
  const shown = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
  say(`ready on http://${shown}:${bound.port} (fast lane: ${[...fast.keys()].join(", ") || "off"})`);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeIdleConnections();
    let exiting = false;
    const exit = () => {
      if (exiting) return;
      exiting = true;
      void runShutdownHooks().finally(() => process.exit(0));
    };
    if (inFlight === 0) exit();
    onIdle = exit;
    setTimeout(() => {
      const cancelled = cancelAtGraceEnd();
      if (cancelled > 0) say(`grace period over: cancelled ${cancelled} call(s) still running`);
      if (inFlight === 0) exit();
      setTimeout(exit, SHUTDOWN_CANCEL_MS).unref();
    }, SHUTDOWN_GRACE_MS).unref();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/**
 * Cancels the calls the app registered for the grace's end (own copy of lib/shutdown.ts's, as this
 * script is outside the bundle), and any registered later at once. Returns how many.
 */
function cancelAtGraceEnd() {
  const state = graceEnd.getOrInit(() => ({ ended: false, cancels: new Set() }));
  state.ended = true;
  const cancels = [...state.cancels];
  state.cancels.clear();
  for (const cancel of cancels) {
    try {
      cancel();
    } catch (err) {
      say(`cancel at the grace's end failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return cancels.length;
}

/** Runs the hooks the app registered (lib/shutdown.ts), each failure reported, all within SHUTDOWN_HOOKS_MS. */
async function runShutdownHooks() {
  const hooks = shutdownHooks.get() ?? [];
  const all = Promise.all(
    hooks.map(async (hook) => {
      try {
        await hook();
      } catch (err) {
        say(`shutdown hook failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }),
  );
  await Promise.race([all, new Promise((r) => setTimeout(r, SHUTDOWN_HOOKS_MS).unref())]);
}

/**
 * The cluster primary: forks the workers, restarts one that dies, passes stop signals on.
 * @param {number} count
 */
function supervise(count) {
  let stopping = false;
  let earlyDeaths = 0;
  /** @type {Map<number, number>} */
  const startedAt = new Map();
  /** @type {Map<number, number>} worker id → slot */
  const slots = new Map();
  const live = () => Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
  /** @param {number} slot */
  const fork = (slot) => {
    const worker = cluster.fork({ [CLUSTER_SLOT_ENV]: String(slot) });
    startedAt.set(worker.id, Date.now());
    slots.set(worker.id, slot);
  };
  cluster.on("exit", (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker.id) ?? 0);
    const slot = slots.get(worker.id) ?? 0;
    startedAt.delete(worker.id);
    slots.delete(worker.id);
    if (stopping) {
      if (live().length === 0) process.exit(process.exitCode ?? 0);
      return;
    }
    say(`worker ${worker.process.pid} exited (${signal ?? `code ${code}`}) after ${Math.round(lived / 1000)} s`);
    earlyDeaths = lived < EARLY_DEATH_MS ? earlyDeaths + 1 : 0;
    if (earlyDeaths >= MAX_EARLY_DEATHS) {
      say("workers keep dying at start; giving up");
      process.exitCode = 1;
      stopAll("SIGTERM");
      return;
    }
    setTimeout(() => stopping || fork(slot), RESTART_DELAY_MS).unref();
  });
  /** @param {NodeJS.Signals} signal */
  const stopAll = (signal) => {
    stopping = true;
    const workers = live();
    if (workers.length === 0) process.exit(process.exitCode ?? 0);
    for (const w of workers) w.process.kill(signal);
  };
  process.on("SIGINT", () => stopAll("SIGINT"));
  process.on("SIGTERM", () => stopAll("SIGTERM"));
  for (let i = 0; i < count; i++) fork(i);
}

/**
 * Builds the jobs thread (webhook runs get their own heap and event loop) and names it in
 * COCKPIT_JOBS_THREAD_FILE, which cluster workers inherit. JOBS_THREAD=0, or a failed build, leaves
 * the jobs on the main thread.
 */
async function prepareJobsThread() {
  if (process.env.JOBS_THREAD === "0") return;
  try {
    process.env.COCKPIT_JOBS_THREAD_FILE = await buildJobsThread(process.cwd());
  } catch (err) {
    say(`jobs thread off, jobs run on the main thread: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function main() {
  const count = workerCount(process.env.WEB_CONCURRENCY);
  if (cluster.isPrimary) await prepareJobsThread();
  if (count > 1 && cluster.isPrimary) {
    await startServerMetrics({
      port: METRICS_PORT,
      hostname: options().hostname,
      dir: process.cwd(),
      role: "primary",
      say,
    });
    supervise(count);
  } else await serve();
}

main().catch((err) => {
  say(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
