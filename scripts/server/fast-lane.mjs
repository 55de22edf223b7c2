// @ts-check
/**
 * The fast lane: serves a few hot App Router route handlers straight from node:http, skipping
 * Next.js's per-request routing cost. It runs the very compiled handler Next.js would (via the
 * route module's `ensureUserland()`, sharing its state). Listed routes must use no Next.js request
 * APIs (`headers()`, `cookies()`, `after()`); anything not an exact method and path match goes to
 * Next.js unchanged.
 */
import { AsyncResource } from "node:async_hooks";
import { createRequire } from "node:module";
import path from "node:path";
import {
  lanePeers,
  preReadBodies,
  rawResponseBodies,
  rawResponseRequests,
  rawResponseStreams,
} from "../../lib/process-channels.mjs";

/** A request body larger than this is refused by the handler (readJson); the lane just streams. */
const BODY_HIGH_WATER_MARK = 64 * 1024;
/**
 * A body that declares at most this many bytes is read whole before the handler runs: the
 * Request carries it as bytes, and lib/http/read-json.ts takes them through `preReadBodies` without
 * reading a stream. The app reads bodies this small without waiting for the body budget anyway
 * (lib/http/body-budget.ts SMALL_BODY_BYTES).
 */
const PRE_READ_MAX_BYTES = 64 * 1024;

/**
 * @typedef {(req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>} FetchHandler
 * @typedef {{ method: string, path: string }} FastRoute
 */

/**
 * Loads the handlers of `routes` from the build in `dir`. A missing or unexpected module is left to
 * Next.js and reported through `warn`: the lane is an optimisation, not a second router.
 * @param {string} dir
 * @param {FastRoute[]} routes
 * @param {(message: string) => void} warn
 * @returns {Promise<Map<string, FetchHandler>>} keyed `${method} ${path}`
 */
export async function loadFastRoutes(dir, routes, warn) {
  const require = createRequire(path.join(dir, "package.json"));
  /** @type {Map<string, FetchHandler>} */
  const handlers = new Map();
  for (const route of routes) {
    const file = path.join(dir, ".next/server/app", route.path, "route.js");
    try {
      const routeModule = require(file).routeModule;
      // Loads the route's own module (our route.ts) the way Next.js does before its first request.
      if (typeof routeModule?.ensureUserland === "function") await routeModule.ensureUserland();
      const handler = routeModule?.userland?.[route.method];
      if (typeof handler !== "function") throw new Error(`no ${route.method} export`);
      handlers.set(`${route.method} ${route.path}`, handler);
    } catch (err) {
      warn(
        `fast lane off for ${route.method} ${route.path} (served by Next.js): ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  return handlers;
}

/** A dynamic segment's value the lane accepts: our ids (`thread_…`); anything else goes to Next.js. */
const ID_SEGMENT = /^[A-Za-z0-9_-]{1,100}$/;

/** @type {WeakMap<Map<string, FetchHandler>, { method: string, segments: string[], handler: FetchHandler }[]>} */
const patternsOf = new WeakMap();

/** Routes with `[param]` segments, parsed once per handler map. @param {Map<string, FetchHandler>} handlers */
function patterns(handlers) {
  let list = patternsOf.get(handlers);
  if (!list) {
    list = [];
    for (const [key, handler] of handlers) {
      if (!key.includes("[")) continue;
      const [method, route] = /** @type {[string, string]} */ (key.split(" "));
      list.push({ method, segments: route.split("/"), handler });
    }
    patternsOf.set(handlers, list);
  }
  return list;
}

/**
 * The handler if the lane serves this request: exact method and path (any query), or `[param]`
 * segments whose values look like our ids (passed as `params`, as Next.js would).
 * @param {Map<string, FetchHandler>} handlers
 * @param {import("node:http").IncomingMessage} req
 * @returns {FetchHandler | undefined}
 */
export function fastHandlerFor(handlers, req) {
  if (handlers.size === 0 || !req.url || req.url[0] !== "/") return undefined;
  const path = pathOf(req.url);
  const exact = handlers.get(`${req.method} ${path}`);
  if (exact) return exact;
  const list = patterns(handlers);
  if (list.length === 0) return undefined;
  const parts = path.split("/");
  for (const p of list) {
    if (p.method !== req.method || p.segments.length !== parts.length) continue;
    /** @type {Record<string, string>} */
    const params = {};
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      const want = /** @type {string} */ (p.segments[i]);
      const got = /** @type {string} */ (parts[i]);
      if (want.startsWith("[")) {
        ok = ID_SEGMENT.test(got);
        params[want.slice(1, -1)] = got;
      } else ok = want === got;
    }
    if (ok) return (request) => p.handler(request, { params: Promise.resolve(params) });
  }
  return undefined;
}

/** The path of a request target, without its query string. @param {string} url */
function pathOf(url) {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

/**
 * Serves a node:http request with a fetch-style handler: a web `Request` whose body streams from
 * the socket and whose `signal` aborts if the client leaves early; the `Response` streamed back
 * with backpressure and cancelled on disconnect.
 * @param {FetchHandler} handler
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 * @param {string} origin e.g. http://127.0.0.1:3000: request URLs never trust the Host header
 * @param {(err: unknown) => void} onError an unexpected failure (the handler threw or the stream broke)
 */
export function serveFetch(handler, req, res, origin, onError) {
  if (!preReadable(req)) return serveRequest(handler, req, res, origin, onError, null);
  /** @type {Buffer[]} */
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  // A client that leaves mid-body is not answered; Node's request timeout ends a slow one.
  req.once("error", () => {});
  // The handler runs in the caller's async context (a trace's AsyncLocalStorage store), not the
  // socket's. (AsyncResource.bind would cost a deprecation wrapper per call.)
  const caller = new AsyncResource("FastLaneBody");
  req.once("end", () =>
    caller.runInAsyncScope(() => {
      const whole = chunks.length === 1 ? /** @type {Buffer} */ (chunks[0]) : Buffer.concat(chunks);
      serveRequest(handler, req, res, origin, onError, whole);
    }),
  );
}

/**
 * A request whose body is read whole first: a body of declared length up to PRE_READ_MAX_BYTES.
 * @param {import("node:http").IncomingMessage} req
 */
function preReadable(req) {
  if (req.method === "GET" || req.method === "HEAD") return false;
  const declared = req.headers["content-length"];
  return declared !== undefined && Number(declared) <= PRE_READ_MAX_BYTES;
}

/**
 * The lane's Request. Its `signal` is the client's, kept here rather than given to the
 * constructor: undici tracks a given signal through a FinalizationRegistry, which keeps every
 * request's signal alive into the old generation.
 */
class LaneRequest extends Request {
  #signal;

  /**
   * @param {string} url
   * @param {RequestInit} init
   * @param {AbortSignal} signal
   */
  constructor(url, init, signal) {
    super(url, init);
    this.#signal = signal;
  }

  get signal() {
    return this.#signal;
  }
}

/**
 * A request whose body was read before the handler runs. The bytes are not handed to the
 * constructor, which would wrap them in a web stream; lib/http/read-json.ts takes them through
 * `preReadBodies`, and the body readers here serve them to anyone else.
 */
class PreReadRequest extends LaneRequest {
  #bytes;
  /** @type {Response | undefined} */
  #response;

  /**
   * @param {string} url
   * @param {RequestInit} init
   * @param {AbortSignal} signal
   * @param {Buffer} bytes
   */
  constructor(url, init, signal, bytes) {
    super(url, init, signal);
    this.#bytes = bytes;
  }

  /** The bytes as a Response, whose readers and `bodyUsed` behave as a Request's would. */
  #asResponse() {
    if (this.#response) return this.#response;
    const type = this.headers.get("content-type");
    // A Buffer is a Uint8Array, which lib.dom's BodyInit accepts only over a plain ArrayBuffer.
    const bytes = /** @type {BodyInit} */ (/** @type {unknown} */ (this.#bytes));
    return (this.#response = new Response(bytes, type ? { headers: { "content-type": type } } : {}));
  }

  get body() {
    return this.#asResponse().body;
  }
  get bodyUsed() {
    return this.#asResponse().bodyUsed;
  }
  arrayBuffer() {
    return this.#asResponse().arrayBuffer();
  }
  blob() {
    return this.#asResponse().blob();
  }
  formData() {
    return this.#asResponse().formData();
  }
  json() {
    return this.#asResponse().json();
  }
  text() {
    return this.#asResponse().text();
  }
  clone() {
    if (this.bodyUsed) throw new TypeError("Request.clone: the body has already been read");
    return new PreReadRequest(this.url, { method: this.method, headers: this.headers }, this.signal, this.#bytes);
  }
}

/**
 * @param {FetchHandler} handler
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 * @param {string} origin
 * @param {(err: unknown) => void} onError
 * @param {Buffer | null} whole the body, when read before the handler runs
 */
function serveRequest(handler, req, res, origin, onError, whole) {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const body = whole ? requestBody(null) : requestBody(req);
  /** @type {Request} */
  let request;
  try {
    const headers = new Headers();
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2)
      headers.append(/** @type {string} */ (raw[i]), /** @type {string} */ (raw[i + 1]));
    const url = origin + req.url;
    request = whole
      ? new PreReadRequest(url, { method: req.method, headers }, controller.signal, whole)
      : new LaneRequest(
          url,
          // @ts-expect-error Node's undici Request needs duplex for a streamed body; lib.dom lacks it.
          { method: req.method, headers, body: body.stream, duplex: "half" },
          controller.signal,
        );
    rawResponseRequests.getOrInit(() => new WeakSet()).add(request);
    lanePeers.getOrInit(() => new WeakMap()).set(request, req.socket.remoteAddress ?? null);
    if (whole) preReadBodies.getOrInit(() => new WeakMap()).set(request, whole);
  } catch (err) {
    // A header or URL node:http accepted but the WHATWG classes refuse.
    sendError(
      res,
      400,
      "invalid_request_error",
      "invalid_request",
      `Malformed request: ${err instanceof Error ? err.message : "unreadable"}`,
    );
    return;
  }
  handler(request, { params: Promise.resolve({}) }).then(
    (response) => writeResponse(response, req, res, body).catch(onError),
    (err) => {
      onError(err);
      if (!res.headersSent)
        sendError(res, 500, "api_error", "internal_error", "The server had an error processing your request");
      else res.destroy();
    },
  );
}

/**
 * The request body as a web ReadableStream with backpressure. Cancelling it stops reading and
 * closes the connection after the response, so a refusal is still delivered without reading the
 * rest. None for `null` (a body read already) and for GET and HEAD.
 * @param {import("node:http").IncomingMessage | null} req
 */
function requestBody(req) {
  const state = {
    stream: /** @type {ReadableStream<Uint8Array> | null} */ (null),
    abandoned: false,
    discard: () => {},
  };
  if (!req || req.method === "GET" || req.method === "HEAD") return state;
  let open = true;
  /** @type {(chunk: Buffer) => void} */
  let onData = () => {};
  state.stream = new ReadableStream(
    {
      start(c) {
        onData = (chunk) => {
          if (!open) return;
          c.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((c.desiredSize ?? 0) <= 0) req.pause();
        };
        req.on("data", onData);
        req.once("end", () => {
          if (!open) return;
          open = false;
          c.close();
        });
        req.once("error", (err) => {
          if (!open) return;
          open = false;
          c.error(err);
        });
      },
      pull() {
        req.resume();
      },
      cancel() {
        open = false;
        req.off("data", onData);
        if (!req.complete) state.abandoned = true;
      },
    },
    { highWaterMark: BODY_HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
  );
  state.discard = () => {
    open = false;
    req.off("data", onData);
    req.resume();
  };
  return state;
}

/**
 * @param {Response} response
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 * @param {{ abandoned: boolean, stream: ReadableStream<Uint8Array> | null, discard: () => void }} body
 */
async function writeResponse(response, req, res, body) {
  if (res.destroyed) {
    rawResponseStreams.get()?.get(response)?.cancel();
    await response.body?.cancel().catch(() => {});
    return;
  }
  res.statusCode = response.status;
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  if (body.abandoned) res.setHeader("connection", "close");
  // A body never read to its end is read and dropped, as node:http does, so the client can finish
  // sending and the connection can carry its next request.
  else if (body.stream && !req.complete) body.discard();
  const text = rawResponseBodies.get()?.get(response);
  if (text !== undefined) {
    res.setHeader("content-length", Buffer.byteLength(text));
    res.end(req.method === "HEAD" ? undefined : text);
    return;
  }
  const sse = rawResponseStreams.get()?.get(response);
  if (sse) return writeEventStream(sse, res);
  if (!response.body || req.method === "HEAD") {
    await response.body?.cancel().catch(() => {});
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const cancel = () => reader.cancel().catch(() => {});
  res.once("close", cancel);
  const batch = writeBatch(res);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      batch.hold();
      if (!res.write(value)) {
        batch.release();
        await drained(res);
      }
    }
    batch.end();
  } catch (err) {
    // The body failed mid-way (our SSE streams end with an error frame themselves instead).
    res.destroy();
    throw err;
  } finally {
    res.off("close", cancel);
  }
}

/**
 * Writes an SSE body handed over through `rawResponseStreams` straight to the socket: the body
 * gathers its frames itself (lib/http/sse-writer.ts), so each of its writes is one write system call (the first
 * one with the headers). Resolves when the response closed: ended, or the client left first (then
 * the body is cancelled).
 * @param {{ attach(sink: { write(text: string): void; end(text?: string): void }): void; cancel(): void }} sse
 * @param {import("node:http").ServerResponse} res
 * @returns {Promise<void>}
 */
function writeEventStream(sse, res) {
  return new Promise((resolve) => {
    res.once("close", () => {
      if (!res.writableFinished) sse.cancel();
      resolve();
    });
    sse.attach({
      write: (text) => {
        if (!res.destroyed) res.write(text);
      },
      end: (text) => {
        if (!res.destroyed) res.end(text);
      },
    });
  });
}

/**
 * Holds a response's writes until the end of the event-loop turn, so the chunks a turn produces,
 * the headers and the final chunk's terminator leave in one write system call: a JSON answer is
 * one write, a stream one per turn that produced frames.
 * @param {import("node:http").ServerResponse} res
 */
function writeBatch(res) {
  let held = false;
  const release = () => {
    if (!held) return;
    held = false;
    if (!res.writableEnded) res.uncork();
  };
  return {
    hold() {
      if (held) return;
      held = true;
      res.cork();
      setImmediate(release);
    },
    release,
    /** Ends the response; end() writes whatever is held. */
    end() {
      held = false;
      res.end();
    },
  };
}

/** @param {import("node:http").ServerResponse} res */
function drained(res) {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve(undefined);
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

/**
 * Answers 400 for a path that is not valid percent-encoding (Next.js fails those with a bare 500).
 * True when answered.
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 */
export function refuseMalformedPath(req, res) {
  const path = pathOf(req.url ?? "");
  if (!path.includes("%")) return false;
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    sendError(res, 400, "invalid_request_error", "invalid_path", "The URL path is not valid percent-encoding");
    return true;
  }
}

/**
 * The OpenAI error body (CONTRACT 4) for failures before any handler answered.
 * @param {import("node:http").ServerResponse} res
 * @param {number} status
 * @param {string} type
 * @param {string} code
 * @param {string} message
 */
function sendError(res, status, type, code, message) {
  const text = JSON.stringify({ error: { message, type, param: null, code } });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
