// @ts-check
/**
 * Process-wide values kept on globalThis, each named once here. scripts/server/main.mjs runs outside
 * the Next.js bundle, so a module it shares with the app is two instances, one per side; the jobs
 * thread takes over the main thread's identity; and dev-mode reloads must not duplicate what a
 * process holds once. Both sides import this file, and nothing else touches these globals.
 */

/**
 * @template T
 * @typedef {object} Channel
 * @property {() => T | undefined} get
 * @property {(value: T) => void} set
 * @property {(make: () => T) => T} getOrInit the value, set to `make()` first when there is none
 * @property {() => void} clear
 */

/**
 * @template T
 * @param {string} name
 * @returns {Channel<T>}
 */
function channel(name) {
  const key = Symbol.for(`cockpit.${name}`);
  const g = /** @type {Record<symbol, T | undefined>} */ (/** @type {unknown} */ (globalThis));
  return {
    get: () => g[key],
    set: (value) => {
      g[key] = value;
    },
    getOrInit: (make) => (g[key] ??= make()),
    clear: () => {
      delete g[key];
    },
  };
}

/**
 * The socket's remote address of the request being served, set by the server script around each
 * request Next.js serves and read by lib/net/client-ip.ts.
 * @type {Channel<import("node:async_hooks").AsyncLocalStorage<{ address: string | null }>>}
 */
export const requestPeer = channel("request-peer");

/**
 * The socket's remote address of each request the fast lane serves (it runs no store per
 * request), set by scripts/server/fast-lane.mjs and read by lib/net/client-ip.ts.
 * @type {Channel<WeakMap<Request, string | null>>}
 */
export const lanePeers = channel("lane-peers");

/**
 * Requests whose response the server script writes itself with the handler's headers as given
 * (the fast lane): Next.js drops a route handler's Content-Encoding, so only these may be answered
 * compressed. Added by scripts/server/fast-lane.mjs, read by lib/http/keeps-content-encoding.ts.
 * @type {Channel<WeakSet<Request>>}
 */
export const rawResponseRequests = channel("raw-response-requests");

/**
 * Request bodies the server script read whole before calling the handler (the fast lane, for a
 * small body of declared length): lib/http/read-json.ts takes them from here instead of reading
 * the request's body stream.
 * @type {Channel<WeakMap<Request, Buffer>>}
 */
export const preReadBodies = channel("pre-read-bodies");

/**
 * JSON texts of responses the server script writes as they are (the fast lane): a hot route's
 * answer skips building and reading a body stream. Set by lib/http/json-response.ts for requests
 * in `rawResponseRequests` only; the Response itself has no body.
 * @type {Channel<WeakMap<Response, string>>}
 */
export const rawResponseBodies = channel("raw-response-bodies");

/**
 * SSE bodies of responses the server script writes to the socket itself (the fast lane): it
 * attaches a sink (lib/http/sse-writer.ts SseBody) instead of reading a web stream. Set by
 * lib/http/event-stream.ts for requests in `rawResponseRequests` only; the Response has no body.
 * @type {Channel<WeakMap<Response, { attach(sink: { write(text: string): void; end(text?: string): void }): void; cancel(): void }>>}
 */
export const rawResponseStreams = channel("raw-response-streams");

/**
 * Where the server listens (address, port, cluster slot), set by the server script once the port is
 * bound; part of the credit lease owner (lib/billing/lease-owner.ts).
 * @type {Channel<{ address: string; port: number; slot: number }>}
 */
export const serverInstance = channel("server-instance");

/**
 * This process's credit lease owner, shared by every bundle that loads lib/billing/lease-owner.ts;
 * the jobs thread sets its main thread's (lib/worker/jobs-thread-setup.ts).
 * @type {Channel<import("./billing/lease-owner").LeaseOwner>}
 */
export const leaseOwner = channel("lease-owner");

/**
 * Hooks the app registers (lib/shutdown.ts) and the server script runs when it stops.
 * @type {Channel<(() => unknown)[]>}
 */
export const shutdownHooks = channel("shutdown-hooks");

/**
 * Calls to cancel when the server's shutdown grace runs out: registered by the app
 * (lib/shutdown.ts), cancelled by the server script.
 * @type {Channel<{ ended: boolean; cancels: Set<() => void> }>}
 */
export const graceEnd = channel("grace-end");

/**
 * The process's sandbox pool (lib/sandbox/index.ts).
 * @type {Channel<import("./sandbox/pool").SandboxPool>}
 */
export const sandboxPool = channel("sandbox-pool");

/**
 * The bill journal's state (lib/persistence/bill-journal.ts).
 * @type {Channel<import("./persistence/bill-journal").JournalState>}
 */
export const billJournal = channel("bill-journal");

/**
 * Set once the database state logger is registered (lib/persistence/db-health.ts).
 * @type {Channel<true>}
 */
export const dbHealthLogger = channel("db-health-logger");

/**
 * The process's Prometheus metric families, set by whoever serves /metrics (the server script, the
 * worker) and unset while METRICS_PORT=0: lib/observability/metrics.
 * @type {Channel<import("./observability/metrics/families.mjs").MetricFamilies>}
 */
export const metrics = channel("metrics");
