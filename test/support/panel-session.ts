function cookiesOf(res: Response): string[] {
  return res.headers.getSetCookie().map((c) => c.split(";")[0]!);
}

/** Signs in through Auth.js's credentials flow (CSRF token, then the callback); returns the Cookie header. */
export async function signInToPanel(baseUrl: string, email: string, password: string): Promise<string> {
  const csrfRes = await fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const jar = cookiesOf(csrfRes);
  const res = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; ") },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
    redirect: "manual",
  });
  const all = [...jar, ...cookiesOf(res)];
  if (!all.some((c) => c.includes("session-token="))) throw new Error(`sign-in failed: HTTP ${res.status}`);
  return all.join("; ");
}
