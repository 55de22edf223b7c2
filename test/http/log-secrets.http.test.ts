import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeUser } from "../support/factories";
import { useGateway } from "../support/gateway";
import { credentialsSignIn, signInToPanel } from "../support/panel-sign-in";

/**
 * No secret reaches the logs: the production server runs at LOG_LEVEL=debug (a line per request),
 * traffic goes over every route family with keys, an SDK JWT, webhook secrets (and a rotated one),
 * a signing secret and a panel password in the places a client puts them (path, query, headers,
 * bodies, a provider's error echoing one), and everything the server printed is searched for each
 * of them and for distinctive pieces of them.
 */
const gw = useGateway({ env: { LOG_LEVEL: "debug", JOBS_IDLE_CHECK_S: "1" } });

/** The secret and pieces of it long enough to identify it (a key's public 12-character prefix is not secret). */
function pieces(secret: string): string[] {
  const body = secret.replace(/^(sk-cp-|whs_|whsec_)/, "");
  const out = [secret, body.slice(0, 16), body.slice(-16)];
  if (secret.startsWith("eyJ")) out.push(...secret.split(".").filter((p) => p.length >= 16));
  return out;
}

describe("logs carry no secrets", () => {
  it("after traffic over every route family, no key, JWT, webhook secret or password appears in the server's output", async () => {
    const { companyId, key } = await gw.tenant(100);
    const { user, password } = await makeUser(db, { companyId });
    const secrets: Record<string, string> = { key, password };
    const call = (cred: string, method: string, path: string, body?: unknown) => gw.call(cred, method, path, body);
    const raw = (path: string, init: RequestInit = {}) =>
      fetch(`${gw.server.url}${path}`, init).then(async (r) => ({ status: r.status, text: await r.text() }));

    // Panel: sign in (a wrong password first), then the JSON endpoints with the session cookie.
    expect((await credentialsSignIn(gw.server.url, user.email, `${password}-wrong`)).cookie).toBeNull();
    const cookie = await signInToPanel(gw.server.url, user.email, password);
    const panel = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${gw.server.url}${path}`, {
        method,
        headers: { cookie, "content-type": "application/json", "sec-fetch-site": "same-origin" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: text.startsWith("{") ? JSON.parse(text) : null };
    };
    const hook = await panel("POST", "/api/panel/webhooks", { name: "Bus" });
    expect(hook.status).toBe(201);
    const rotated = await panel("POST", `/api/panel/webhooks/${hook.json.webhook_id}/rotate`, {});
    expect(rotated.status).toBe(200);
    const signed = await panel("POST", "/api/panel/webhooks", { name: "Signed" });
    const signing = await panel("POST", `/api/panel/webhooks/${signed.json.webhook_id}/signature`, { required: true });
    expect(signing.json.signing_secret).toMatch(/^whsec_/);
    Object.assign(secrets, {
      webhook: hook.json.secret,
      rotated: rotated.json.secret,
      signed: signed.json.secret,
      signing: signing.json.signing_secret,
    });
    const panelKey = await panel("POST", "/api/panel/keys", { name: "from panel", scopes: ["chat"] });
    expect(panelKey.json.key).toMatch(/^sk-cp-/);
    secrets.panelKey = panelKey.json.key;
    for (const path of [
      "/api/panel/keys",
      "/api/panel/usage",
      "/api/panel/models",
      "/api/panel/threads",
      "/api/panel/tools",
      "/api/panel/profiles",
      "/api/panel/guardrails",
      "/api/panel/knowledge",
      "/api/panel/agents",
      "/api/panel/webhooks",
    ]) {
      await panel("GET", path);
    }
    await panel("GET", `/api/panel/keys?token=${key}`);

    // SDK: a token, a child key, views and actions, with the JWT in the Authorization header and in queries.
    const token = (await call(key, "POST", "/v1/sdk/token", { scopes: ["chat", "view", "action"] })).json
      .token as string;
    expect(token).toMatch(/^eyJ/);
    const child = await call(key, "POST", "/v1/sdk/keys", { name: "child", scopes: ["chat"] });
    expect(child.status).toBe(201);
    Object.assign(secrets, { jwt: token, childKey: child.json.key });
    await call(token, "GET", "/v1/sdk/views");
    await call(token, "GET", `/v1/sdk/view/crm/pipeline?access_token=${token}`);
    await call(token, "POST", "/v1/sdk/action", {
      service: "crm",
      action: "create_deal",
      input: { title: key, amount: "1" },
    });
    await call(key, "GET", `/v1/sdk/keys?api_key=${key}`);
    await call(key, "GET", `/v1/sdk/keys/${child.json.id}`);

    // The gateway API: completions (offline and through a provider whose error echoes a key), threads and runs, the rest.
    await call(key, "POST", "/v1/chat/completions", {
      model: "local-mini",
      messages: [{ role: "user", content: `my key is ${key}` }],
    });
    gw.fake.queue.push({ kind: "error", status: 401, message: `Incorrect API key provided: ${child.json.key}` });
    await call(key, "POST", "/v1/chat/completions", {
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "hi" }],
    });
    const thread = await gw.thread(key, [{ role: "user", content: "hello" }]);
    await call(key, "POST", `/v1/threads/${thread}/runs`, { model: "local-mini" });
    await call(key, "GET", `/v1/threads/${thread}/messages?secret=${hook.json.secret}`);
    await call(key, "POST", "/v1/knowledge", { name: "Logs", description: "" });
    await call(key, "POST", "/v1/tools", {
      name: "add",
      description: "Adds",
      json_schema: { type: "object", properties: {} },
      python_code: "def add():\n    return 1\n",
    });
    await call(key, "POST", "/v1/profiles", { name: "p" });
    await call(key, "POST", "/v1/guardrails", { name: "g" });
    for (const path of [
      "/v1/models",
      "/v1/usage",
      "/v1/me",
      "/v1/threads",
      "/v1/tools",
      "/v1/profiles",
      "/v1/guardrails",
      "/v1/knowledge",
    ])
      await call(key, "GET", path);

    // Errors: a wrong key, a key in x-api-key and in the query, unknown paths, malformed bodies.
    await raw("/v1/models", { headers: { authorization: `Bearer ${key}x` } });
    await raw(`/v1/models?key=${key}`);
    await raw("/v1/models", { headers: { "x-api-key": key } });
    await raw(`/v1/nope/${key}`);
    await raw(`/v1/threads/${key}`, { headers: { authorization: `Bearer ${key}` } });
    await raw("/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{nope",
    });
    await raw(`/api/panel/nope?password=${password}`);

    // Webhook triggers: valid (both secrets during the grace period), invalid, malformed, another method.
    const sent = await raw(hook.json.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ event_topic: "orders.created", payload: { n: 1 } }),
    });
    expect(sent.status).toBe(202);
    expect(
      (
        await raw(rotated.json.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ event_topic: "a.b", payload: {} }),
        })
      ).status,
    ).toBe(202);
    await raw(`${hook.json.url}x`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    await raw(rotated.json.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
    await raw(rotated.json.url, { method: "GET" });
    await raw(signed.json.url, {
      method: "POST",
      headers: { "content-type": "application/json", "webhook-signature": `v1,${signing.json.signing_secret}` },
      body: "{}",
    });
    await raw(`/v1/public/triggers/${companyId}/${encodeURIComponent(rotated.json.secret)}%E0`, { method: "POST" });
    await raw(`/login?callbackUrl=${encodeURIComponent(rotated.json.url)}`);

    // Give the jobs thread time to process the events and the server time to flush its log lines.
    await new Promise((r) => setTimeout(r, 3000));
    const output = gw.server.output();
    // The request lines were written (the scan is not of an empty log), the trigger's among them.
    expect(output).toContain(`/v1/public/triggers/${companyId}/`);
    expect(output).toContain("/v1/sdk/view/crm/pipeline");
    const lines = output.split("\n");
    const leaks = Object.entries(secrets).flatMap(([name, secret]) => {
      const found = lines.filter((l) => pieces(secret).some((p) => l.includes(p)));
      return found.length ? [`${name}: ${found.length} lines, first: ${found[0]!.slice(0, 300)}`] : [];
    });
    expect(leaks).toEqual([]);
  });
});
