// @ts-check
/**
 * The server span of each request (HTTP semantic conventions), around whatever serves it (the fast
 * lane or Next.js), continuing an incoming W3C `traceparent`. Loaded only when tracing is on.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from "@opentelemetry/semantic-conventions";
import { redactSecrets } from "../../log-redact.mjs";
import { routeMatcher } from "./route-matcher.mjs";

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"]);

/**
 * @template {unknown[]} A
 * @typedef {(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse, ...rest: A) => void} Dispatch
 */

/**
 * `dispatch` wrapped in a server span: active while it runs (the app's spans are its children),
 * ended when the response closes.
 * @template {unknown[]} A
 * @param {Dispatch<A>} dispatch
 * @param {{ dir: string, hostname: string, port: number }} server
 * @returns {Dispatch<A>}
 */
export function traceRequests(dispatch, server) {
  const tracer = trace.getTracer("cockpit-gateway");
  const routeOf = routeMatcher(server.dir);
  return (req, res, ...rest) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const pathname = q === -1 ? url : url.slice(0, q);
    const route = routeOf(pathname);
    const method = KNOWN_METHODS.has(req.method ?? "") ? /** @type {string} */ (req.method) : "_OTHER";
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    /** @type {import("@opentelemetry/api").Attributes} */
    const attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      // A trigger's path holds its secret.
      [ATTR_URL_PATH]: redactSecrets(pathname),
      [ATTR_URL_SCHEME]: "http",
      [ATTR_SERVER_ADDRESS]: server.hostname,
      [ATTR_SERVER_PORT]: server.port,
      [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
    };
    if (method === "_OTHER") attributes[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = req.method;
    if (route) attributes[ATTR_HTTP_ROUTE] = route;
    const agent = req.headers["user-agent"];
    if (agent) attributes[ATTR_USER_AGENT_ORIGINAL] = agent;
    if (req.socket.remoteAddress) attributes[ATTR_CLIENT_ADDRESS] = req.socket.remoteAddress;
    const span = tracer.startSpan(route ? `${method} ${route}` : method, { kind: SpanKind.SERVER, attributes }, parent);
    res.once("close", () => {
      if (res.headersSent) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
      if (res.headersSent && res.statusCode >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(res.statusCode));
        span.setStatus({ code: SpanStatusCode.ERROR });
      } else if (!res.writableFinished) span.setAttribute(ATTR_ERROR_TYPE, "client_closed");
      span.end();
    });
    context.with(trace.setSpan(parent, span), dispatch, undefined, req, res, ...rest);
  };
}
