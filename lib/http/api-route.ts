import "server-only";
import type { AuthContext } from "@/lib/auth/auth-context";
import { authenticate } from "@/lib/auth/authenticate";
import { requireScope, type Scope } from "@/lib/auth/scopes";
import { AppError } from "@/lib/errors";
import { SMALL_BODY_BYTES } from "./body-budget";
import { CORS_HEADERS } from "./cors";
import { toErrorResponse, type ErrorBodyFormat } from "./error-response";
import { logRequest } from "./log-request";
import { readParams } from "./params";
import { enforceRateLimit } from "./rate-limit";
import { requestIdFor } from "./request-id";

type Params = Record<string, string | string[] | undefined>;

export interface ApiContext<P extends Params> {
  req: Request;
  auth: AuthContext;
  params: P;
  requestId: string;
  /**
   * Settles once the rate limiter admitted the call (rejects with the 429). A route with
   * `overlapRateLimit` must await it before any side effect.
   */
  admitted: Promise<void>;
}

export interface PublicContext<P extends Params> {
  req: Request;
  params: P;
  requestId: string;
}

/** Another protocol's conventions on a route (Anthropic's front door): where its key comes, how its errors look. */
export interface ApiDialect {
  /** A header that carries the key when there is no Authorization header (`x-api-key`). */
  keyHeader?: string;
  errorBody: ErrorBodyFormat;
  /** A header that repeats x-request-id under the protocol's own name (Anthropic's SDKs read `request-id`). */
  requestIdHeader?: string;
  /** Whether this request speaks the dialect (its errors and headers; default: every request to the route). */
  applies?: (req: Request) => boolean;
}

export type RouteHandler = (req: Request, ctx: { params: Promise<Params> }) => Promise<Response>;

/** Adds the headers every /v1 response carries. Responses from fetch() are immutable: copy those. */
function finish(res: Response, requestId: string, extra: Record<string, string> | undefined): Response {
  let out = res;
  try {
    out.headers.set("x-request-id", requestId);
  } catch {
    out = new Response(res.body, res);
    out.headers.set("x-request-id", requestId);
  }
  for (const [k, v] of Object.entries(CORS_HEADERS)) out.headers.set(k, v);
  if (extra) for (const [k, v] of Object.entries(extra)) out.headers.set(k, v);
  return out;
}

/** A body small enough to read while the rate limiter decides (declared size, else assumed large). */
function smallBody(req: Request): boolean {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  return Number.isFinite(declared) && declared <= SMALL_BODY_BYTES;
}

/** The verdict of routes that awaited the limiter before their handler: already admitted. */
const ADMITTED: Promise<void> = Promise.resolve();

/**
 * The wrapper of every keyed /v1 route: auth, rate limit, scope check, params, then the handler;
 * every error becomes the OpenAI error body.
 */

export function apiRoute<P extends Params = Params>(
  opts: {
    /** `scope: null` = any valid credential (the token exchange). */
    scope: Scope | null;
    /**
     * Let the handler parse and prepare while the rate-limit statement is in flight, saving a round
     * trip; it awaits `admitted` before its first side effect, and a 429 still wins.
     */
    overlapRateLimit?: boolean;
    dialect?: ApiDialect;
  },
  handler: (ctx: ApiContext<P>) => Promise<Response>,
): RouteHandler {
  return async (req, ctx) => {
    const started = performance.now();
    const requestId = requestIdFor(req);
    const dialect = opts.dialect && (opts.dialect.applies?.(req) ?? true) ? opts.dialect : undefined;
    let auth: AuthContext | undefined;
    let rateHeaders: Record<string, string> | undefined;
    let limit: Promise<Record<string, string> | undefined> | undefined;
    let res: Response;
    try {
      auth = await authenticate(req, opts.dialect?.keyHeader);
      limit = enforceRateLimit(auth);
      limit.catch(() => {}); // awaited below; never an unhandled rejection meanwhile
      // Only a small body is read while the limiter decides: a large one (or one of unknown size)
      // waits for the verdict, so a client over its limit cannot make us read megabytes.
      const overlap = opts.overlapRateLimit === true && smallBody(req);
      if (!overlap) rateHeaders = await limit;
      if (opts.scope) requireScope(auth.scopes, opts.scope);
      const admitted = overlap ? limit.then(() => undefined) : ADMITTED;
      admitted.catch(() => {});
      res = await handler({ req, auth, params: await readParams<P>(ctx.params), requestId, admitted });
      if (overlap) rateHeaders = await limit;
    } catch (caught) {
      let err = caught;
      // The limiter's verdict comes first, as if it had been awaited before the handler ran.
      if (opts.overlapRateLimit && limit) rateHeaders = await limit.catch((e: unknown) => ((err = e), undefined));
      res = toErrorResponse(err, requestId, dialect?.errorBody);
      if (err instanceof AppError && err.code === "rate_limited") rateHeaders = undefined;
    }
    const out = finish(res, requestId, rateHeaders);
    if (dialect?.requestIdHeader) out.headers.set(dialect.requestIdHeader, requestId);
    logRequest(req, out.status, started, requestId, auth?.companyId);
    return out;
  };
}

/** Routes without a key (webhook trigger, health): same errors, request id and CORS, no auth. */
export function publicRoute<P extends Params = Params>(
  handler: (ctx: PublicContext<P>) => Promise<Response>,
): RouteHandler {
  return async (req, ctx) => {
    const started = performance.now();
    const requestId = requestIdFor(req);
    let res: Response;
    try {
      res = await handler({ req, params: await readParams<P>(ctx.params), requestId });
    } catch (err) {
      res = toErrorResponse(err, requestId);
    }
    const out = finish(res, requestId, undefined);
    logRequest(req, out.status, started, requestId, undefined);
    return out;
  };
}
