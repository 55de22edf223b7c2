/**
 * The widget's gateway calls and credentials (widget/VOCABULARY.md, CONTRACT 5.2–5.4), first match
 * wins:
 * - `tokenProvider` or `token-url` (the host's backend): a token or `{token, expires_in | expires_at}`, renewed before
 *   expiry, so no long-lived key sits in the page;
 * - `auth-token` holding an SDK key (`sk-cp-…`): exchanged at `POST /v1/sdk/token`, renewed the same way;
 * - `auth-token` holding a JWT: used as is until it expires.
 */
export const SDUI_VERSION = 1;
const KEY_PREFIX = "sk-cp-";
/** Renew at this fraction of the token's lifetime (a 300 s token at 240 s). */
const RENEW_AT = 0.8;

type TokenAnswer = string | { token: string; expires_in?: number; expires_at?: number };
export type TokenProvider = () => Promise<TokenAnswer>;

export interface Credentials {
  gateway: string;
  authToken: string | null;
  tokenUrl: string | null;
  tokenProvider: TokenProvider | null;
  service: string;
  view: string;
}

/** A failed call, as the `cockpit-error` event carries it. */
export class WidgetError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
  get detail() {
    return { status: this.status, code: this.code, message: this.message, param: this.param };
  }
}

interface Token {
  value: string;
  /** ms epoch, or null when unknown (a JWT without `exp`, a provider answering a bare opaque string). */
  expiresAt: number | null;
  /** When to fetch the next one; null: this token cannot be renewed. */
  renewAt: number | null;
}

function jwtExpiry(token: string): number | null {
  try {
    const payload = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as { exp?: unknown };
    return typeof payload.exp === "number" ? payload.exp * 1000 : null;
  } catch {
    return null;
  }
}

function toToken(answer: unknown, renewable: boolean): Token {
  const obj =
    typeof answer === "string"
      ? { token: answer }
      : (answer as { token?: unknown; expires_in?: unknown; expires_at?: unknown } | null);
  if (!obj || typeof obj.token !== "string" || !obj.token)
    throw new WidgetError(0, "token_invalid", "The token provider answered no token");
  const now = Date.now();
  // expires_in is relative, so a skewed browser clock does not matter; expires_at is Unix seconds.
  const expiresAt =
    typeof obj.expires_in === "number"
      ? now + obj.expires_in * 1000
      : typeof obj.expires_at === "number"
        ? obj.expires_at * 1000
        : jwtExpiry(obj.token);
  const renewAt = renewable && expiresAt !== null ? now + Math.max(1000, (expiresAt - now) * RENEW_AT) : null;
  return { value: obj.token, expiresAt, renewAt };
}

async function readError(res: Response, fallback: string): Promise<WidgetError> {
  type ErrorBody = { error?: { message?: unknown; code?: unknown; type?: unknown; param?: unknown } } | null;
  let body: ErrorBody = null;
  try {
    body = (await res.json()) as ErrorBody;
  } catch {
    // Not JSON (a proxy's HTML page): the status says enough.
  }
  const e = body?.error;
  return new WidgetError(
    res.status,
    typeof e?.code === "string" ? e.code : typeof e?.type === "string" ? e.type : `http_${res.status}`,
    typeof e?.message === "string" ? e.message : `${fallback} (HTTP ${res.status})`,
    typeof e?.param === "string" ? e.param : null,
  );
}

async function send(url: string, init: RequestInit, what: string): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    throw new WidgetError(0, "network_error", `Could not reach ${what}`);
  }
}

export class Client {
  private token: Token | null = null;
  private pending: Promise<Token> | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Set when the element leaves the page: a renewal still in flight must not schedule another. */
  private stopped = false;

  /** `onRenewFailed` hears a failed background renewal (a revoked key): the widget shows its error state. */
  constructor(
    private readonly creds: Credentials,
    private readonly onRenewFailed: (err: WidgetError) => void,
  ) {}

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async fetchToken(): Promise<Token> {
    const { gateway, tokenProvider, tokenUrl, authToken } = this.creds;
    if (tokenProvider) return toToken(await tokenProvider(), true);
    if (tokenUrl) {
      const res = await send(
        tokenUrl,
        {
          method: "POST",
          credentials: "include",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ service: this.creds.service, view: this.creds.view }),
        },
        "the token URL",
      );
      if (!res.ok) throw await readError(res, "The token URL refused");
      return toToken(await res.json(), true);
    }
    if (!authToken) throw new WidgetError(0, "missing_credentials", "Set auth-token, token-url or tokenProvider");
    if (!authToken.startsWith(KEY_PREFIX)) return toToken(authToken, false);
    const res = await send(
      `${gateway}/v1/sdk/token`,
      { method: "POST", headers: { authorization: `Bearer ${authToken}` } },
      "the gateway",
    );
    if (!res.ok) throw await readError(res, "The token exchange failed");
    return toToken(await res.json(), true);
  }

  /** The current token, fetching one when there is none, it has expired or `force` (after a 401). */
  private async getToken(force = false): Promise<string> {
    const t = this.token;
    if (!force && t && (t.expiresAt === null || t.expiresAt > Date.now() + 1000)) return t.value;
    return (await this.renew()).value;
  }

  /** One renewal at a time: calls racing for a token share it. */
  private renew(): Promise<Token> {
    this.pending ??= this.fetchToken()
      .then((t) => {
        this.token = t;
        this.schedule(t);
        return t;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  private schedule(t: Token) {
    clearTimeout(this.timer);
    // A background tab may run this late or never: getToken() also renews an expired token on use.
    if (t.renewAt === null || this.stopped) return;
    this.timer = setTimeout(() => {
      this.renew().catch((err: unknown) => {
        const e = err instanceof WidgetError ? err : new WidgetError(0, "token_error", String(err));
        // A network blip keeps the current token and tries again shortly; a refusal is final.
        if (e.status === 0 && e.code === "network_error") this.schedule({ ...t, renewAt: Date.now() + 5000 });
        else this.onRenewFailed(e);
      });
    }, t.renewAt - Date.now());
  }

  /** A call with the token; a 401 gets one renewal and one retry (a token that expired in flight). */
  async call(path: string, init: RequestInit = {}): Promise<unknown> {
    let res: Response | null = null;
    for (let attempt = 0; attempt < 2; attempt++) {
      const token = await this.getToken(attempt > 0);
      res = await send(
        `${this.creds.gateway}${path}`,
        { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } },
        "the gateway",
      );
      // A fixed JWT cannot be renewed: retrying would send the same one.
      if (res.status !== 401 || this.token?.renewAt === null) break;
    }
    if (!res!.ok) throw await readError(res!, "The gateway refused");
    return res!.json();
  }
}
