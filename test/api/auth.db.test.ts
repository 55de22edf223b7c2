import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey } from "../support/factories";
import { mintSdkToken } from "@/lib/auth/jwt";
import { authSecret } from "@/lib/auth/secret";
import { revokeKey } from "@/lib/keys";
import * as me from "@/app/v1/me/route";
import * as token from "@/app/v1/sdk/token/route";
import * as keys from "@/app/v1/sdk/keys/route";
import * as keyById from "@/app/v1/sdk/keys/[keyId]/route";
import { callRoute } from "../support/call-route";

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");

describe("authentication and tenancy on /v1", () => {
  let companyId: string;
  let allKey: { id: string; secret: string };
  let viewKey: string;
  let other: { companyId: string; keyId: string; secret: string };

  beforeAll(async () => {
    const company = await makeCompany(db, { name: "Auth Co" });
    companyId = company.id;
    const k = await makeKey(db, { companyId });
    allKey = { id: k.key.id, secret: k.secret };
    viewKey = (await makeKey(db, { companyId, scopes: ["view"] })).secret;
    const otherCo = await makeCompany(db, { name: "Other Co" });
    const ok = await makeKey(db, { companyId: otherCo.id });
    other = { companyId: otherCo.id, keyId: ok.key.id, secret: ok.secret };
  });

  it("GET /v1/me answers the key's company", async () => {
    const res = await callRoute(me.GET, { key: allKey.secret });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ company_id: companyId, company_name: "Auth Co" });
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(res.headers.get("x-ratelimit-limit-requests")).toBe("10000");
  });

  it.each([
    ["missing", undefined, "missing_api_key"],
    ["malformed header", "Basic abc", "invalid_api_key"],
    ["unknown key", "Bearer sk-cp-0000000000000000000000000000000000000000", "invalid_api_key"],
    ["garbage token", "Bearer hello", "invalid_api_key"],
  ])("401 for a %s credential, in the OpenAI error shape", async (_name, header, code) => {
    const res = await callRoute(me.GET, { headers: header ? { authorization: header } : {} });
    expect(res.status).toBe(401);
    expect(res.json.error).toMatchObject({ type: "authentication_error", code, param: null });
    expect(typeof res.json.error.message).toBe("string");
  });

  it("401 for a revoked key and for an expired key", async () => {
    const { key, secret } = await makeKey(db, { companyId });
    expect((await callRoute(me.GET, { key: secret })).status).toBe(200);
    await revokeKey(db, { companyId, keyId: key.id });
    const revoked = await callRoute(me.GET, { key: secret });
    expect(revoked.status).toBe(401);
    expect(revoked.json.error.code).toBe("revoked_api_key");

    const expired = await makeKey(db, { companyId, expiresAt: new Date(Date.now() + 1500) });
    expect((await callRoute(me.GET, { key: expired.secret })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    const res = await callRoute(me.GET, { key: expired.secret });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe("expired_api_key");
  });

  it("403 when the key lacks the scope", async () => {
    const res = await callRoute(me.GET, { key: viewKey });
    expect(res.status).toBe(403);
    expect(res.json.error).toMatchObject({ type: "permission_error", code: "insufficient_scope" });
    expect((await callRoute(keys.GET, { key: viewKey })).status).toBe(403);
  });

  it("another company's key is 404 with the same body as a missing one", async () => {
    const foreign = await callRoute(keyById.DELETE, {
      method: "DELETE",
      key: allKey.secret,
      params: { keyId: other.keyId },
    });
    const missing = await callRoute(keyById.DELETE, {
      method: "DELETE",
      key: allKey.secret,
      params: { keyId: "key_doesnotexist" },
    });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.json).toEqual(missing.json);
    // And the foreign key still works: nothing was revoked.
    expect((await callRoute(me.GET, { key: other.secret })).status).toBe(200);
    expect((await callRoute(keyById.GET, { key: allKey.secret, params: { keyId: other.keyId } })).status).toBe(404);
  });

  describe("SDK tokens", () => {
    it("exchanges a key for a 300 s JWT that works like the key", async () => {
      const res = await callRoute(token.POST, { method: "POST", key: allKey.secret });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ token_type: "Bearer", expires_in: 300, company_id: companyId });
      expect(res.json.expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThan(295);
      expect(res.json.scopes.sort()).toEqual(["action", "admin", "chat", "view"]);
      const meRes = await callRoute(me.GET, { key: res.json.token });
      expect(meRes.status).toBe(200);
      expect(meRes.json.company_id).toBe(companyId);
    });

    it("narrows scopes, and refuses scopes the key lacks", async () => {
      const narrowed = await callRoute(token.POST, { method: "POST", key: allKey.secret, body: { scopes: ["view"] } });
      expect(narrowed.status).toBe(200);
      expect(narrowed.json.scopes).toEqual(["view"]);
      expect((await callRoute(me.GET, { key: narrowed.json.token })).status).toBe(403);
      const escalate = await callRoute(token.POST, { method: "POST", key: viewKey, body: { scopes: ["chat"] } });
      expect(escalate.status).toBe(403);
      const bad = await callRoute(token.POST, { method: "POST", key: allKey.secret, body: { scopes: ["root"] } });
      expect(bad.status).toBe(400);
      expect(bad.json.error.param).toBe("scopes.0");
    });

    it("a token cannot be exchanged for another token", async () => {
      const first = await callRoute(token.POST, { method: "POST", key: allKey.secret });
      const second = await callRoute(token.POST, { method: "POST", key: first.json.token });
      expect(second.status).toBe(401);
    });

    it("a revoked key's tokens stop working at once", async () => {
      const { key, secret } = await makeKey(db, { companyId });
      const t = await callRoute(token.POST, { method: "POST", key: secret });
      expect((await callRoute(me.GET, { key: t.json.token })).status).toBe(200);
      const revoke = await callRoute(keyById.DELETE, {
        method: "DELETE",
        key: allKey.secret,
        params: { keyId: key.id },
      });
      expect(revoke.status).toBe(200);
      expect(revoke.json).toEqual({ id: key.id, object: "sdk.key", deleted: true });
      expect((await callRoute(me.GET, { key: t.json.token })).status).toBe(401);
    });

    it("refuses alg none, a wrong signature, a token 1 s past expiry, and foreign claims", async () => {
      const now = Math.floor(Date.now() / 1000);
      const claims = {
        iss: "cockpit-gateway",
        aud: "cockpit-sdk",
        sub: allKey.id,
        cid: companyId,
        scp: ["chat"],
        iat: now,
        exp: now + 300,
      };
      const none = `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`;
      expect((await callRoute(me.GET, { key: none })).status).toBe(401);

      const wrongKey = new TextEncoder().encode("not-the-secret-not-the-secret-not-the-secret");
      const forged = await new SignJWT({ cid: companyId, scp: ["chat"] })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer("cockpit-gateway")
        .setAudience("cockpit-sdk")
        .setSubject(allKey.id)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(wrongKey);
      expect((await callRoute(me.GET, { key: forged })).status).toBe(401);

      // Signed with the right secret but claiming another company: refused (the key decides).
      const right = new TextEncoder().encode(`sdk-jwt:${authSecret()}`);
      const crossTenant = await new SignJWT({ cid: other.companyId, scp: ["chat"] })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer("cockpit-gateway")
        .setAudience("cockpit-sdk")
        .setSubject(allKey.id)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(right);
      expect((await callRoute(me.GET, { key: crossTenant })).status).toBe(401);

      const { token: expired } = await mintSdkToken({ keyId: allKey.id, companyId, scopes: ["chat"] }, now - 301);
      const res = await callRoute(me.GET, { key: expired });
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe("token_expired");

      const { token: fresh } = await mintSdkToken({ keyId: allKey.id, companyId, scopes: ["chat"] }, now - 290);
      expect((await callRoute(me.GET, { key: fresh })).status).toBe(200);
      const tampered = fresh.replace(
        /\.([^.]+)\./,
        (_m, p: string) => `.${b64({ ...JSON.parse(Buffer.from(p, "base64url").toString()), scp: ["admin"] })}.`,
      );
      expect((await callRoute(me.GET, { key: tampered })).status).toBe(401);
    });
  });

  describe("SDK keys", () => {
    it("creates a key (secret shown once), lists it without the secret, and revokes it", async () => {
      const created = await callRoute(keys.POST, {
        method: "POST",
        key: allKey.secret,
        body: { name: "widget", scopes: ["view", "action"], rate_limit_per_minute: 120 },
      });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({
        name: "widget",
        scopes: ["view", "action"],
        rate_limit_per_minute: 120,
        expires_at: null,
      });
      expect(created.json.key).toMatch(/^sk-cp-/);
      expect(created.json.key.startsWith(created.json.prefix)).toBe(true);
      const list = await callRoute(keys.GET, { key: allKey.secret, path: "/v1/sdk/keys?limit=100" });
      expect(list.status).toBe(200);
      expect(list.json.object).toBe("list");
      const listed = list.json.data.find((k: { id: string }) => k.id === created.json.id);
      expect(listed).toBeDefined();
      expect(JSON.stringify(list.json)).not.toContain(created.json.key);
      const again = await callRoute(keyById.DELETE, {
        method: "DELETE",
        key: allKey.secret,
        params: { keyId: created.json.id },
      });
      expect(again.status).toBe(200);
      const twice = await callRoute(keyById.DELETE, {
        method: "DELETE",
        key: allKey.secret,
        params: { keyId: created.json.id },
      });
      expect(twice.status).toBe(409);
    });

    it("a key can only mint keys with scopes it holds: 400 naming scopes", async () => {
      const adminOnly = (await makeKey(db, { companyId, scopes: ["admin"] })).secret;
      const res = await callRoute(keys.POST, {
        method: "POST",
        key: adminOnly,
        body: { name: "x", scopes: ["admin", "chat"] },
      });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ type: "invalid_request_error", param: "scopes" });
      const ok = await callRoute(keys.POST, { method: "POST", key: adminOnly, body: { name: "x", scopes: ["admin"] } });
      expect(ok.status).toBe(201);
    });

    it("a token cannot create keys (403) but lists, reads and revokes them", async () => {
      const { token: jwt } = await mintSdkToken({ keyId: allKey.id, companyId, scopes: ["admin"] });
      const res = await callRoute(keys.POST, {
        method: "POST",
        key: jwt,
        body: { name: "x", scopes: ["admin"], rate_limit_per_minute: 100_000 },
      });
      expect(res.status).toBe(403);
      expect(res.json.error).toMatchObject({ type: "permission_error", code: "sdk_key_required" });
      const victim = await makeKey(db, { companyId, scopes: ["chat"] });
      expect((await callRoute(keys.GET, { key: jwt, path: "/v1/sdk/keys" })).status).toBe(200);
      expect((await callRoute(keyById.GET, { key: jwt, params: { keyId: victim.key.id } })).status).toBe(200);
      expect(
        (await callRoute(keyById.DELETE, { method: "DELETE", key: jwt, params: { keyId: victim.key.id } })).status,
      ).toBe(200);
    });

    it("a created key's rate limit and expiry never exceed the creator's", async () => {
      const creatorExpiry = new Date(Math.floor(Date.now() / 1000) * 1000 + 86_400_000);
      const creator = (
        await makeKey(db, { companyId, scopes: ["chat", "admin"], rateLimitPerMinute: 30, expiresAt: creatorExpiry })
      ).secret;
      const post = (body: unknown) => callRoute(keys.POST, { method: "POST", key: creator, body });
      const tooFast = await post({ name: "x", scopes: ["chat"], rate_limit_per_minute: 31 });
      expect(tooFast.status).toBe(400);
      expect(tooFast.json.error.param).toBe("rate_limit_per_minute");
      const tooLate = await post({
        name: "x",
        scopes: ["chat"],
        expires_at: new Date(creatorExpiry.getTime() + 1000).toISOString(),
      });
      expect(tooLate.status).toBe(400);
      expect(tooLate.json.error.param).toBe("expires_at");
      const defaults = await post({ name: "defaults", scopes: ["chat"] });
      expect(defaults.status).toBe(201);
      expect(defaults.json).toMatchObject({ rate_limit_per_minute: 30, expires_at: creatorExpiry.getTime() / 1000 });
    });

    it("validates the body: unknown fields, bad scopes, past expiry, wrong types", async () => {
      const cases: [unknown, string][] = [
        [{ name: "x", scopes: ["chat"], extra: 1 }, "extra"],
        [{ name: "x", scopes: [] }, "scopes"],
        [{ name: "x", scopes: ["chat"], expires_at: "2001-01-01T00:00:00Z" }, "expires_at"],
        [{ name: "x", scopes: ["chat"], rate_limit_per_minute: "60" }, "rate_limit_per_minute"],
        [{ scopes: ["chat"] }, "name"],
      ];
      for (const [body, param] of cases) {
        const res = await callRoute(keys.POST, { method: "POST", key: allKey.secret, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.json.error.type).toBe("invalid_request_error");
        expect(res.json.error.param).toBe(param);
      }
    });

    it("paginates with limit/after and refuses limit above 100", async () => {
      const co = await makeCompany(db);
      const admin = await makeKey(db, { companyId: co.id });
      for (let i = 0; i < 4; i++) await makeKey(db, { companyId: co.id, name: `k${i}` });
      const p1 = await callRoute(keys.GET, { key: admin.secret, path: "/v1/sdk/keys?limit=2" });
      expect(p1.json.data).toHaveLength(2);
      expect(p1.json.has_more).toBe(true);
      const p2 = await callRoute(keys.GET, {
        key: admin.secret,
        path: `/v1/sdk/keys?limit=2&after=${p1.json.last_id}`,
      });
      const p3 = await callRoute(keys.GET, {
        key: admin.secret,
        path: `/v1/sdk/keys?limit=2&after=${p2.json.last_id}`,
      });
      const ids = [...p1.json.data, ...p2.json.data, ...p3.json.data].map((k: { id: string }) => k.id);
      expect(new Set(ids).size).toBe(5);
      expect(p3.json.has_more).toBe(false);
      expect((await callRoute(keys.GET, { key: admin.secret, path: "/v1/sdk/keys?limit=101" })).status).toBe(400);
    });
  });
});
