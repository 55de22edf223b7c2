import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeUser } from "@/db/factories";
import { startNextServer, type RunningServer } from "../support/next-server";
import { credentialsSignIn } from "../support/panel-sign-in";

/**
 * Attacks on signing in, over real HTTP against the production server: an open redirect through
 * the login page's callbackUrl.
 */
const AUTH_SECRET = process.env.AUTH_SECRET ?? randomBytes(32).toString("hex");
let server: RunningServer;

beforeAll(async () => {
  server = await startNextServer({ AUTH_SECRET, LOG_LEVEL: "error" });
});

afterAll(async () => {
  await server?.stop();
});

async function user() {
  const company = await makeCompany(db, { creditsOt: 1 });
  const { user, password } = await makeUser(db, { companyId: company.id });
  return { email: user.email, password, companyId: company.id };
}

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
      const res = await fetch(`${server.url}/login?callbackUrl=${attack}`, { headers: { cookie: cookie! }, redirect: "manual" });
      expect(res.status, attack).toBe(307);
      const location = res.headers.get("location")!;
      expect(new URL(location, `${server.url}/login`).origin, `${attack} → ${location}`).toBe(origin);
      expect(location, attack).toBe("/");
    }
  });

  it("a path of our own is kept", async () => {
    const u = await user();
    const { cookie } = await credentialsSignIn(server.url, u.email, u.password);
    const res = await fetch(`${server.url}/login?callbackUrl=%2Fusage%3Fsource%3Dwhisper`, { headers: { cookie: cookie! }, redirect: "manual" });
    expect(res.status).toBe(307);
    expect(res.headers.get("location")).toBe("/usage?source=whisper");
  });
});
