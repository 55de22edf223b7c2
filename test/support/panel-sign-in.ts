import { Agent, fetch, type Dispatcher } from "undici";

export interface SignInResult {
  /** The HTTP status of Auth.js's credentials callback (200 signed in, 401 refused). */
  status: number;
  /** Auth.js's error code (`CredentialsSignin`, or what `authorize` threw), null when signed in. */
  error: string | null;
  /** The Cookie header of the session, null when not signed in. */
  cookie: string | null;
  /** Where Auth.js sends the browser next (the body's `url`). */
  url: string;
}

const cookiesOf = (res: { headers: { getSetCookie(): string[] } }) =>
  res.headers.getSetCookie().map((c) => c.split(";")[0]!);

/**
 * A client whose connections leave from `address` (any 127.x.y.z on Linux reaches a server bound
 * to 127.0.0.1): to the server, a different client IP, as the socket reports it.
 */
export function clientFrom(address: string): Dispatcher {
  return new Agent({ localAddress: address });
}

/** A random loopback address other than 127.0.0.1, so counters kept by client IP start fresh. */
export function randomLoopback(): string {
  const byte = () => 1 + Math.floor(Math.random() * 254);
  return `127.${byte()}.${byte()}.${1 + byte()}`;
}

/** Signs in through Auth.js's credentials flow exactly as next-auth/react's signIn does (CSRF token, then the callback with json=true). */
export async function credentialsSignIn(
  baseUrl: string,
  email: string,
  password: string,
  opts: { dispatcher?: Dispatcher; headers?: Record<string, string>; callbackUrl?: string } = {},
): Promise<SignInResult> {
  const csrfRes = await fetch(`${baseUrl}/api/auth/csrf`, { dispatcher: opts.dispatcher });
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const jar = cookiesOf(csrfRes);
  const res = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; "), ...opts.headers },
    body: new URLSearchParams({
      csrfToken,
      email,
      password,
      json: "true",
      ...(opts.callbackUrl === undefined ? {} : { callbackUrl: opts.callbackUrl }),
    }),
    redirect: "manual",
    dispatcher: opts.dispatcher,
  });
  const text = await res.text();
  if (res.status >= 500) throw new Error(`credentials callback answered ${res.status}: ${text.slice(0, 200)}`);
  const body = JSON.parse(text) as { url: string };
  const all = [...jar, ...cookiesOf(res)];
  const signedIn = all.some((c) => c.includes("session-token="));
  return {
    status: res.status,
    error: new URL(body.url).searchParams.get("error"),
    cookie: signedIn ? all.join("; ") : null,
    url: body.url,
  };
}

/** Signs in and returns the session's Cookie header; throws when refused. */
export async function signInToPanel(baseUrl: string, email: string, password: string): Promise<string> {
  const res = await credentialsSignIn(baseUrl, email, password);
  if (!res.cookie) throw new Error(`sign-in failed: HTTP ${res.status} ${res.error ?? ""}`);
  return res.cookie;
}
