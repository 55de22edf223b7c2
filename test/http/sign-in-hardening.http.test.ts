import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey, makeUser } from "../support/factories";
import { startNextServer, type RunningServer } from "../support/next-server";
import { clientFrom, credentialsSignIn, randomLoopback } from "../support/panel-sign-in";

/**
 * Attacks on signing in and on SDK tokens, over real HTTP against the production server: an open
 * redirect through the login page's callbackUrl, password guessing through Auth.js's credentials
 * endpoint (per email and per client address, the address taken from the socket: each client here
 * connects from its own 127.x.y.z), and an SDK JWT forged with an `iat` in the future.
 */
const AUTH_SECRET = process.env.AUTH_SECRET ?? randomBytes(32).toString("hex");
/** Short, so a case can wait for the window to pass; long enough for a burst of 30 attempts to land in one window on a busy box. */
const WINDOW_S = 30;
let server: RunningServer;

beforeAll(async () => {
  server = await startNextServer({ AUTH_SECRET, LOG_LEVEL: "error", LOGIN_THROTTLE_WINDOW_S: String(WINDOW_S) });
});

afterAll(async () => {
  await server?.stop();
});

async function user() {
  const company = await makeCompany(db, { creditsOt: 1 });
  const { user, password } = await makeUser(db, { companyId: company.id });
  return { email: user.email, password, companyId: company.id };
}

const unknownEmail = () => `nobody-${randomBytes(6).toString("hex")}@example.test`;
const forgedForwardedFor = () => `198.51.100.${1 + Math.floor(Math.random() * 250)}`;

describe("login redirect (callbackUrl)", () => {
  it("signed in, /login never redirects off-site, whatever callbackUrl says", async () => {
    const u = await user();
    const { cookie } = await credentialsSignIn(server.url, u.email, u.password);
    expect(cookie).not.toBeNull();
    const attacks = [
      "%2F%5Clocalhost:39999%2Fpwned",
      "%2F%09%2Flocalhost:39999%2Fpwned",
      "%2F%0A%2Flocalhost:39999",
      "%2F%0D%0A%2Flocalhost:39999",
      "%2F%2Flocalhost:39999",
      "%5C%5Clocalhost:39999",
      "%2F.%2F%2Flocalhost:39999",
      "%2F..%2F%2Flocalhost:39999",
      "https%3A%2F%2Fevil.example%2F",
      "https:%5C%5Cevil.example",
      "javascript%3Aalert(1)",
      "%20%2F%2Fevil.example",
    ];
    const origin = new URL(server.url).origin;
    for (const attack of attacks) {
      const res = await fetch(`${server.url}/login?callbackUrl=${attack}`, {
        headers: { cookie: cookie! },
        redirect: "manual",
      });
      expect(res.status, attack).toBe(307);
      const location = res.headers.get("location")!;
      expect(new URL(location, `${server.url}/login`).origin, `${attack} → ${location}`).toBe(origin);
      expect(location, attack).toBe("/");
    }
  });

  it("the credentials callback with an unparsable or foreign callbackUrl answers without a 500 and sends the browser to our origin", async () => {
    const u = await user();
    const origin = new URL(server.url).origin;
    for (const callbackUrl of [
      `http://127.0.0.1:${server.port}.evil.example/`,
      "http://[::1",
      "https://evil.example/x",
      "//evil.example/",
      `${origin}/usage?x=1`,
      "/keys",
    ]) {
      for (const password of [u.password, "wrong"]) {
        const res = await credentialsSignIn(server.url, u.email, password, { callbackUrl });
        expect(res.status, callbackUrl).toBeLessThan(500);
        expect(new URL(res.url).origin, `${callbackUrl} → ${res.url}`).toBe(origin);
      }
    }
    const ownPath = await credentialsSignIn(server.url, u.email, u.password, { callbackUrl: `${origin}/usage?x=1` });
    expect(ownPath.url).toBe(`${origin}/usage?x=1`);
  });

  it("a path of our own is kept", async () => {
    const u = await user();
    const { cookie } = await credentialsSignIn(server.url, u.email, u.password);
    const res = await fetch(`${server.url}/login?callbackUrl=%2Fusage%3Fsource%3Dwhisper`, {
      headers: { cookie: cookie! },
      redirect: "manual",
    });
    expect(res.status).toBe(307);
    expect(res.headers.get("location")).toBe("/usage?source=whisper");
  });
});

describe("sign-in throttle", () => {
  it("after 10 wrong passwords for an email from one address, the right one is refused there until the window passes; the owner at another address signs in", async () => {
    const victim = await user();
    const attacker = clientFrom(randomLoopback());
    const guesses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        credentialsSignIn(server.url, victim.email, `guess-${i}`, { dispatcher: attacker }),
      ),
    );
    for (const g of guesses) expect(g).toMatchObject({ status: 401, error: "CredentialsSignin", cookie: null });

    const again = await credentialsSignIn(server.url, victim.email, victim.password, { dispatcher: attacker });
    const refusedAt = Date.now();
    expect(again.cookie).toBeNull();
    const retryAfterS = Number(/^TooManyAttempts:(\d+)$/.exec(again.error ?? "")?.[1]);
    expect(retryAfterS).toBeGreaterThan(0);
    expect(retryAfterS).toBeLessThanOrEqual(WINDOW_S);
    const owner = await credentialsSignIn(server.url, victim.email, victim.password, {
      dispatcher: clientFrom(randomLoopback()),
    });
    expect(owner.error).toBeNull();
    expect(owner.cookie).not.toBeNull();
    // The owner signing in elsewhere does not lift the lockout of the guessing address.
    expect(
      (await credentialsSignIn(server.url, victim.email, victim.password, { dispatcher: attacker })).error,
    ).toMatch(/^TooManyAttempts:\d+$/);

    await new Promise((r) => setTimeout(r, Math.max(0, refusedAt + retryAfterS * 1000 + 1000 - Date.now())));
    const later = await credentialsSignIn(server.url, victim.email, victim.password, { dispatcher: attacker });
    expect(later.error).toBeNull();
    expect(later.cookie).not.toBeNull();
  });

  it("after 30 wrong passwords from one address (across emails, X-Forwarded-For forged), that address is refused; another is not", async () => {
    const target = await user();
    const attacker = clientFrom(randomLoopback());
    const guesses = await Promise.all(
      Array.from({ length: 30 }, () =>
        credentialsSignIn(server.url, unknownEmail(), "guess", {
          dispatcher: attacker,
          headers: { "x-forwarded-for": forgedForwardedFor() },
        }),
      ),
    );
    for (const g of guesses) expect(g.error).toBe("CredentialsSignin");

    const blocked = await credentialsSignIn(server.url, target.email, target.password, {
      dispatcher: attacker,
      headers: { "x-forwarded-for": forgedForwardedFor() },
    });
    expect(blocked.cookie).toBeNull();
    expect(blocked.error).toMatch(/^TooManyAttempts:\d+$/);

    const elsewhere = await credentialsSignIn(server.url, target.email, target.password, {
      dispatcher: clientFrom(randomLoopback()),
    });
    expect(elsewhere.cookie).not.toBeNull();
  });
});

describe("SDK JWT", () => {
  const signingKey = new TextEncoder().encode(`sdk-jwt:${AUTH_SECRET}`);
  const forge = (claims: { sub: string; cid: string }, iat: number) =>
    new SignJWT({ cid: claims.cid, scp: ["chat"] })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer("cockpit-gateway")
      .setAudience("cockpit-sdk")
      .setSubject(claims.sub)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 300)
      .sign(signingKey);
  const me = (token: string) => fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });

  it("a token whose iat is in the future is refused with 401, so no token outlives 300 s", async () => {
    const company = await makeCompany(db, { creditsOt: 1 });
    const { key } = await makeKey(db, { companyId: company.id, scopes: ["chat"] });
    const now = Math.floor(Date.now() / 1000);
    for (const ahead of [60, 3600, 365 * 86_400]) {
      const res = await me(await forge({ sub: key.id, cid: company.id }, now + ahead));
      expect(res.status, `iat now + ${ahead} s`).toBe(401);
      const body = (await res.json()) as { error: { type: string; code: string } };
      expect(body.error).toMatchObject({ type: "authentication_error", code: "invalid_token" });
    }
    // A clock a second or two ahead on the minting server is tolerated.
    expect((await me(await forge({ sub: key.id, cid: company.id }, now + 2))).status).toBe(200);
    expect((await me(await forge({ sub: key.id, cid: company.id }, now))).status).toBe(200);
  });
});
