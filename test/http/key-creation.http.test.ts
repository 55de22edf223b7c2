import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import type { Scope } from "@/db/enums";
import { makeCompany, makeKey, makeUser } from "../support/factories";
import { apiKeys } from "@/db/schema";
import { startNextServer, type RunningServer } from "../support/next-server";
import { signInToPanel } from "../support/panel-sign-in";

/**
 * Only a key, never a short-lived token, creates keys through /v1/sdk/keys, and a created key never
 * exceeds its creator (CONTRACT 4, 5.5). Over real HTTP against the production server.
 */
let server: RunningServer;

beforeAll(async () => {
  server = await startNextServer({
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    LOG_LEVEL: "error",
  });
});

afterAll(async () => {
  await server?.stop();
});

interface ErrorBody {
  error: { type: string; code: string; param: string | null; message: string };
}

async function call(credential: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${credential}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

/** A company with the finding's creator: scopes chat + admin, 60 calls a minute. */
async function creatorKey(args: { scopes?: Scope[]; rateLimitPerMinute?: number; expiresAt?: Date | null } = {}) {
  const company = await makeCompany(db);
  const { key, secret } = await makeKey(db, {
    companyId: company.id,
    scopes: args.scopes ?? ["chat", "admin"],
    rateLimitPerMinute: args.rateLimitPerMinute ?? 60,
    expiresAt: args.expiresAt ?? null,
  });
  return { companyId: company.id, key, secret };
}

async function keyCount(companyId: string): Promise<number> {
  return (await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.companyId, companyId))).length;
}

function expectInvalid(res: { status: number; json: ErrorBody }, param: string) {
  expect(res.status, JSON.stringify(res.json)).toBe(400);
  expect(res.json.error.type).toBe("invalid_request_error");
  expect(res.json.error.param).toBe(param);
}

describe("POST /v1/sdk/keys: a created key never exceeds its creator", () => {
  it("a widget token narrowed to admin cannot mint a permanent, faster key: 403, nothing created", async () => {
    const { companyId, secret } = await creatorKey();
    const exchanged = await call(secret, "POST", "/v1/sdk/token", { scopes: ["admin"] });
    expect(exchanged.status).toBe(200);
    const jwt = exchanged.json.token as string;
    const before = await keyCount(companyId);

    for (const body of [
      { name: "escalated", scopes: ["admin"], rate_limit_per_minute: 100_000 },
      {
        name: "modest",
        scopes: ["admin"],
        rate_limit_per_minute: 10,
        expires_at: new Date(Date.now() + 60_000).toISOString(),
      },
      { not: "even a valid body" },
    ]) {
      const res = await call(jwt, "POST", "/v1/sdk/keys", body);
      expect(res.status, JSON.stringify(res.json)).toBe(403);
      expect((res.json as ErrorBody).error.type).toBe("permission_error");
    }
    expect(await keyCount(companyId)).toBe(before);
  });

  it("a token still lists, reads and revokes keys (only creation needs a key)", async () => {
    const { companyId, secret } = await creatorKey();
    const victim = await makeKey(db, { companyId, scopes: ["chat"] });
    const jwt = (await call(secret, "POST", "/v1/sdk/token", { scopes: ["admin"] })).json.token as string;

    const list = await call(jwt, "GET", "/v1/sdk/keys?limit=100");
    expect(list.status).toBe(200);
    expect(list.json.data.map((k: { id: string }) => k.id)).toContain(victim.key.id);
    expect((await call(jwt, "GET", `/v1/sdk/keys/${victim.key.id}`)).status).toBe(200);
    const revoked = await call(jwt, "DELETE", `/v1/sdk/keys/${victim.key.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.json).toEqual({ id: victim.key.id, object: "sdk.key", deleted: true });
  });

  it("scopes beyond the creator's: 400 naming scopes", async () => {
    const { companyId, secret } = await creatorKey();
    const before = await keyCount(companyId);
    expectInvalid(await call(secret, "POST", "/v1/sdk/keys", { name: "x", scopes: ["admin", "view"] }), "scopes");
    expect(await keyCount(companyId)).toBe(before);
  });

  it("a rate limit above the creator's: 400 naming rate_limit_per_minute; omitted is capped at the creator's", async () => {
    const { secret } = await creatorKey();
    expectInvalid(
      await call(secret, "POST", "/v1/sdk/keys", { name: "x", scopes: ["admin"], rate_limit_per_minute: 100_000 }),
      "rate_limit_per_minute",
    );
    expectInvalid(
      await call(secret, "POST", "/v1/sdk/keys", { name: "x", scopes: ["chat"], rate_limit_per_minute: 61 }),
      "rate_limit_per_minute",
    );

    const slow = await creatorKey({ rateLimitPerMinute: 10 });
    const res = await call(slow.secret, "POST", "/v1/sdk/keys", { name: "default rpm", scopes: ["chat"] });
    expect(res.status).toBe(201);
    expect(res.json.rate_limit_per_minute).toBe(10);
  });

  it("an expiry later than the creator's: 400 naming expires_at; omitted inherits the creator's; past: 400", async () => {
    const creatorExpiry = new Date(Math.floor(Date.now() / 1000) * 1000 + 86_400_000);
    const { secret } = await creatorKey({ expiresAt: creatorExpiry });
    const later = new Date(creatorExpiry.getTime() + 1000).toISOString();
    expectInvalid(
      await call(secret, "POST", "/v1/sdk/keys", { name: "x", scopes: ["chat"], expires_at: later }),
      "expires_at",
    );
    expectInvalid(
      await call(secret, "POST", "/v1/sdk/keys", { name: "x", scopes: ["chat"], expires_at: "2001-01-01T00:00:00Z" }),
      "expires_at",
    );

    for (const body of [
      { name: "omitted", scopes: ["chat"] },
      { name: "null", scopes: ["chat"], expires_at: null },
    ]) {
      const inherited = await call(secret, "POST", "/v1/sdk/keys", body);
      expect(inherited.status, JSON.stringify(inherited.json)).toBe(201);
      expect(inherited.json.expires_at).toBe(creatorExpiry.getTime() / 1000);
    }
  });

  it("within every bound: 201, and the new key works with what it was given", async () => {
    const creatorExpiry = new Date(Math.floor(Date.now() / 1000) * 1000 + 86_400_000);
    const { companyId, secret } = await creatorKey({ expiresAt: creatorExpiry });
    const expiresAt = new Date(creatorExpiry.getTime() - 3_600_000);
    const res = await call(secret, "POST", "/v1/sdk/keys", {
      name: "child",
      scopes: ["chat"],
      rate_limit_per_minute: 30,
      expires_at: expiresAt.toISOString(),
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toMatchObject({
      name: "child",
      scopes: ["chat"],
      rate_limit_per_minute: 30,
      expires_at: expiresAt.getTime() / 1000,
    });
    const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, res.json.id));
    expect(row).toMatchObject({ companyId, scopes: ["chat"], rateLimitPerMinute: 30, expiresAt });
    const me = await call(res.json.key, "GET", "/v1/me");
    expect(me.status).toBe(200);
    expect(me.json.company_id).toBe(companyId);

    const same = await call(secret, "POST", "/v1/sdk/keys", {
      name: "peer",
      scopes: ["chat", "admin"],
      rate_limit_per_minute: 60,
      expires_at: creatorExpiry.toISOString(),
    });
    expect(same.status, JSON.stringify(same.json)).toBe(201);
  });
});

describe("the panel's key creation", () => {
  async function panelPost(cookie: string | null, body: unknown, bearer?: string) {
    const headers: Record<string, string> = { "content-type": "application/json", "sec-fetch-site": "same-origin" };
    if (cookie) headers.cookie = cookie;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    const res = await fetch(`${server.url}/api/panel/keys`, { method: "POST", headers, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as any };
  }

  it("is not reachable with a token or a key (session only)", async () => {
    const { companyId, secret } = await creatorKey();
    const jwt = (await call(secret, "POST", "/v1/sdk/token", { scopes: ["admin"] })).json.token as string;
    const before = await keyCount(companyId);
    for (const bearer of [jwt, secret]) {
      const res = await panelPost(
        null,
        { name: "via panel", scopes: ["admin"], rate_limit_per_minute: 100_000 },
        bearer,
      );
      expect(res.status).toBe(401);
      expect((res.json as ErrorBody).error.type).toBe("authentication_error");
    }
    expect(await keyCount(companyId)).toBe(before);
  });

  it("lets the company's admin choose any scopes, rate limit and expiry, and still validates them", async () => {
    const company = await makeCompany(db);
    const { user, password } = await makeUser(db, { companyId: company.id });
    const cookie = await signInToPanel(server.url, user.email, password);
    const res = await panelPost(cookie, {
      name: "ops",
      scopes: ["chat", "view", "action", "admin"],
      rate_limit_per_minute: 100_000,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toMatchObject({ rate_limit_per_minute: 100_000, expires_at: null });
    expectInvalid(
      await panelPost(cookie, { name: "x", scopes: ["chat"], rate_limit_per_minute: 100_001 }),
      "rate_limit_per_minute",
    );
    expectInvalid(
      await panelPost(cookie, { name: "x", scopes: ["chat"], expires_at: "2001-01-01T00:00:00Z" }),
      "expires_at",
    );
    expectInvalid(await panelPost(cookie, { name: "x", scopes: ["root"] }), "scopes.0");
  });
});
