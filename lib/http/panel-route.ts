import "server-only";
import { SCOPES } from "@/db/enums";
import { CREDENTIAL, type AuthContext } from "@/lib/auth/auth-context";
import { AppError } from "@/lib/errors";
import { getPanelSession } from "@/lib/panel/get-panel-session";
import type { ApiContext, RouteHandler } from "./api-route";
import { toErrorResponse } from "./error-response";
import { logRequest } from "./log-request";
import { readParams } from "./params";
import { requestIdFor } from "./request-id";

const SAFE_METHODS = new Set(["GET", "HEAD"]);

const crossSite = () => new AppError("forbidden", "Cross-site request refused", { wireCode: "csrf" });

/** The host[:port] of an Origin header, or null when it is absent, opaque (`null`) or not an http(s) origin. */
function originHost(origin: string | null): string | null {
  if (!origin || !URL.canParse(origin)) return null;
  const url = new URL(origin);
  return url.protocol === "http:" || url.protocol === "https:" ? url.host : null;
}

/**
 * The browser sends the panel cookie on its own, so a state-changing call must come from our origin
 * (CSRF), per Sec-Fetch-Site or Origin; anything else, an unparsable Origin included, is a 403.
 */
function assertSameOrigin(req: Request): void {
  if (SAFE_METHODS.has(req.method)) return;
  const site = req.headers.get("sec-fetch-site");
  if (site) {
    if (site === "same-origin") return;
    throw crossSite();
  }
  const origin = originHost(req.headers.get("origin"));
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  if (origin && host && origin === host.toLowerCase()) return;
  throw crossSite();
}

/** Like apiRoute, for the panel: the session's company, every scope (panel users administer their company). */
export function panelRoute<P extends Record<string, string>>(
  handler: (ctx: ApiContext<P>) => Promise<Response>,
): RouteHandler {
  return async (req, ctx) => {
    const started = performance.now();
    const requestId = requestIdFor(req);
    let auth: AuthContext | undefined;
    let res: Response;
    try {
      const session = await getPanelSession();
      if (!session) throw new AppError("unauthenticated", "Sign in to the panel first", { wireCode: "no_session" });
      assertSameOrigin(req);
      auth = {
        companyId: session.companyId,
        scopes: [...SCOPES],
        credential: CREDENTIAL.session,
        keyId: null,
        userId: session.userId,
        rateLimitPerMinute: null,
      };
      // Panel sessions have no per-key rate limit: admitted at once.
      res = await handler({
        req,
        auth,
        params: await readParams<P>(ctx.params),
        requestId,
        admitted: Promise.resolve(),
      });
    } catch (err) {
      res = toErrorResponse(err, requestId);
    }
    res.headers.set("x-request-id", requestId);
    logRequest(req, res.status, started, requestId, auth?.companyId);
    return res;
  };
}
