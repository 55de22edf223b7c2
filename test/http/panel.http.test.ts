import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey, makeUser } from "../support/factories";
import { apiKeys, ledgerEntries, threads } from "@/db/schema";
import { startNextServer, type RunningServer } from "../support/next-server";
import { signInToPanel } from "../support/panel-sign-in";
import { runCli } from "../support/run-cli";

/**
 * The panel's JSON endpoints (/api/panel/*) over real HTTP with a real Auth.js session: no session
 * is 401, a cross-site state change is 403 (an unparsable Origin too), another company's key is
 * 404, model overrides stay in the session's company, and the playground bills the session's company.
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

async function tenant(creditsOt = 100) {
  const company = await makeCompany(db, { creditsOt });
  const { user, password } = await makeUser(db, { companyId: company.id });
  const cookie = await signInToPanel(server.url, user.email, password);
  return { company, cookie };
}

function panel(
  cookie: string | null,
  path: string,
  init: { method?: string; body?: unknown; crossSite?: boolean } = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (cookie) headers.cookie = cookie;
  headers["sec-fetch-site"] = init.crossSite ? "cross-site" : "same-origin";
  return fetch(`${server.url}${path}`, {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

describe("panel endpoints", () => {
  it("without a session: 401 in the OpenAI error shape", async () => {
    for (const [method, path] of [
      ["GET", "/api/panel/models"],
      ["GET", "/api/panel/keys"],
      ["POST", "/api/panel/playground/threads"],
      ["GET", "/api/panel/company"],
    ] as const) {
      const res = await panel(null, path, { method, body: method === "POST" ? {} : undefined });
      expect(res.status, `${method} ${path}`).toBe(401);
      const body = (await res.json()) as { error: { type: string } };
      expect(body.error.type).toBe("authentication_error");
    }
  });

  it("a cross-site state change is refused with 403 even with a valid session", async () => {
    const { cookie } = await tenant();
    const res = await panel(cookie, "/api/panel/models/gpt-4.1-mini", {
      method: "PUT",
      body: { hidden: true },
      crossSite: true,
    });
    expect(res.status).toBe(403);
  });

  it("without Sec-Fetch-Site, an Origin that is opaque, unparsable or another site's is refused with 403 in the OpenAI shape", async () => {
    const { cookie } = await tenant();
    const host = new URL(server.url).host;
    for (const origin of [
      "null",
      "not a url",
      "http://",
      "file:///etc/passwd",
      `https://evil.example`,
      `http://${host}.evil.example`,
      `http://evil.example:${server.port}`,
    ]) {
      const res = await fetch(`${server.url}/api/panel/models/gpt-4.1-mini`, {
        method: "PUT",
        headers: { "content-type": "application/json", cookie, origin },
        body: JSON.stringify({ hidden: true }),
      });
      expect(res.status, origin).toBe(403);
      const body = (await res.json()) as { error: { type: string; code: string } };
      expect(body.error, origin).toMatchObject({ type: "permission_error", code: "csrf" });
    }
    const same = await fetch(`${server.url}/api/panel/models/gpt-4.1-mini`, {
      method: "PUT",
      headers: { "content-type": "application/json", cookie, origin: server.url },
      body: JSON.stringify({ hidden: true }),
    });
    expect(same.status).toBe(200);
  });

  it("GET /api/panel/company: the session's company, its name and balance, and never another's", async () => {
    const { company, cookie } = await tenant(12.5);
    const other = await tenant(99);
    const res = await panel(cookie, "/api/panel/company");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: company.id, name: company.name, balance_ot: 12.5 });
    expect(await (await panel(other.cookie, "/api/panel/company")).json()).toMatchObject({
      id: other.company.id,
      balance_ot: 99,
    });
  });

  it("another company's key: revoking it is 404 and leaves it active", async () => {
    const a = await tenant();
    const other = await makeCompany(db, { creditsOt: 1 });
    const { key } = await makeKey(db, { companyId: other.id });
    const res = await panel(a.cookie, `/api/panel/keys/${key.id}`, { method: "DELETE" });
    expect(res.status).toBe(404);
    const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(row!.status).toBe("active");
  });

  it("a model override made in one company's panel does not reach another company's /v1/models", async () => {
    const a = await tenant();
    const b = await tenant();
    const keyA = (await makeKey(db, { companyId: a.company.id })).secret;
    const keyB = (await makeKey(db, { companyId: b.company.id })).secret;
    const put = await panel(a.cookie, "/api/panel/models/gpt-4.1-mini", { method: "PUT", body: { hidden: true } });
    expect(put.status).toBe(200);
    const ids = async (key: string) => {
      const res = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      return ((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id);
    };
    expect(await ids(keyA)).not.toContain("gpt-4.1-mini");
    expect(await ids(keyB)).toContain("gpt-4.1-mini");
  });

  it("the playground runs a thread through the same pipeline and bills the session's company", async () => {
    const a = await tenant();
    const created = await panel(a.cookie, "/api/panel/playground/threads", {
      method: "POST",
      body: { messages: [{ role: "user", content: "hello from the panel" }] },
    });
    expect(created.status).toBe(201);
    const threadId = ((await created.json()) as { id: string }).id;
    const res = await panel(a.cookie, `/api/panel/playground/threads/${threadId}/runs`, {
      method: "POST",
      body: { model: "local-chat-latest" },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: string; status: string; usage: { total_tokens: number } };
    expect(body.status).toBe("completed");
    expect(body.usage.total_tokens).toBeGreaterThan(0);
    const rows = await db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.companyId, a.company.id), eq(ledgerEntries.kind, "run")));
    expect(rows.map((r) => r.referenceId)).toEqual([body.id]);
    const t = await db.select().from(threads).where(eq(threads.companyId, a.company.id));
    expect(t.map((r) => r.id)).toEqual([threadId]);

    // The next message goes into the same thread; another company cannot add to it.
    const next = await panel(a.cookie, `/api/panel/playground/threads/${threadId}/messages`, {
      method: "POST",
      body: { role: "user", content: "and again" },
    });
    expect(next.status).toBe(201);
    const b = await tenant();
    const foreign = await panel(b.cookie, `/api/panel/playground/threads/${threadId}/messages`, {
      method: "POST",
      body: { role: "user", content: "not mine" },
    });
    expect(foreign.status).toBe(404);
  });

  it("a playground run with `profile_ids: []` runs without the company's default profile", async () => {
    const a = await tenant();
    const profile = await panel(a.cookie, "/api/panel/profiles", {
      method: "POST",
      body: { name: "House style", system_prompt: "Answer in French.", is_default: true },
    });
    expect(profile.status).toBe(201);
    const stepTypes = async (profileIds?: string[]) => {
      const created = await panel(a.cookie, "/api/panel/playground/threads", {
        method: "POST",
        body: { messages: [{ role: "user", content: "which profile?" }] },
      });
      const threadId = ((await created.json()) as { id: string }).id;
      const run = await panel(a.cookie, `/api/panel/playground/threads/${threadId}/runs`, {
        method: "POST",
        body: { model: "local-chat-latest", ...(profileIds ? { profile_ids: profileIds } : {}) },
      });
      const runId = ((await run.json()) as { id: string }).id;
      const steps = await panel(a.cookie, `/api/panel/threads/${threadId}/runs/${runId}/steps`);
      return ((await steps.json()) as { data: { type: string }[] }).data.map((s) => s.type);
    };
    expect(await stepTypes()).toContain("profiles");
    expect(await stepTypes([])).not.toContain("profiles");
  });
});

/**
 * Prices are the operator's (CONTRACT 7): a company admin who zeroed its prices could call any
 * model for free at a zero balance, so the panel refuses any price field and only the operator CLI
 * prices a company.
 */
describe("prices are the operator's, never the company admin's", () => {
  const ZERO = { input_per_m: 0, cached_input_per_m: 0, output_per_m: 0 };

  async function getModel(key: string, slug: string) {
    const res = await fetch(`${server.url}/v1/models/${slug}`, { headers: { authorization: `Bearer ${key}` } });
    return {
      status: res.status,
      body: (await res.json()) as { status: string; pricing: { input: number; cached_input: number; output: number } },
    };
  }

  it("PUT with any price field is a 400 naming the field, and the price stays the catalog's", async () => {
    const a = await tenant(0);
    const { secret: key } = await makeKey(db, { companyId: a.company.id });
    const before = (await getModel(key, "gpt-5")).body.pricing;
    expect(before).toMatchObject({ input: 1250, cached_input: 125, output: 10000 });

    for (const [body, param] of [
      [ZERO, "input_per_m"],
      [{ cached_input_per_m: 0 }, "cached_input_per_m"],
      [{ output_per_m: 0.000001 }, "output_per_m"],
      // null ("back to the catalog price") is a price field all the same.
      [{ input_per_m: null }, "input_per_m"],
      // Refused as a whole: the visibility change in the same body does not happen either.
      [{ hidden: true, output_per_m: 0 }, "output_per_m"],
    ] as const) {
      const res = await panel(a.cookie, "/api/panel/models/gpt-5", { method: "PUT", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      const err = (await res.json()) as { error: { type: string; param: string; message: string } };
      expect(err.error).toMatchObject({ type: "invalid_request_error", param });
      expect(err.error.message).toContain("operator");
    }
    const after = await getModel(key, "gpt-5");
    expect(after.status).toBe(200);
    expect(after.body.pricing).toEqual(before);
  });

  it("the attack: zero prices refused, so a zero-balance company's call is still a 402 and nothing is billed", async () => {
    const a = await tenant(0);
    const { secret: key } = await makeKey(db, { companyId: a.company.id });
    const put = await panel(a.cookie, "/api/panel/models/local-chat-latest", { method: "PUT", body: ZERO });
    expect(put.status).toBe(400);
    expect((await getModel(key, "local-chat-latest")).body.pricing).toMatchObject({ input: 100, output: 400 });
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "local-chat-latest", messages: [{ role: "user", content: "free tokens please" }] }),
    });
    expect(res.status).toBe(402);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("insufficient_balance");
    expect(await db.select().from(ledgerEntries).where(eq(ledgerEntries.companyId, a.company.id))).toHaveLength(0);
  });

  it("hide, show and enable still work", async () => {
    const a = await tenant();
    const { secret: key } = await makeKey(db, { companyId: a.company.id });
    expect((await panel(a.cookie, "/api/panel/models/gpt-5", { method: "PUT", body: { hidden: true } })).status).toBe(
      200,
    );
    expect((await getModel(key, "gpt-5")).status).toBe(404);
    expect((await panel(a.cookie, "/api/panel/models/gpt-5", { method: "PUT", body: { hidden: false } })).status).toBe(
      200,
    );
    expect((await getModel(key, "gpt-5")).status).toBe(200);

    expect((await getModel(key, "claude-haiku-4-5")).body.status).toBe("disabled");
    expect(
      (await panel(a.cookie, "/api/panel/models/claude-haiku-4-5", { method: "PUT", body: { enabled: true } })).status,
    ).toBe(200);
    expect((await getModel(key, "claude-haiku-4-5")).body.status).toBe("active");
    expect((await panel(a.cookie, "/api/panel/models/claude-haiku-4-5", { method: "DELETE" })).status).toBe(200);
    expect((await getModel(key, "claude-haiku-4-5")).body.status).toBe("disabled");
  });

  it("the operator's price (CLI, another process) reaches the running server: shown, held and billed at; --reset returns to the catalog", async () => {
    const a = await tenant(1);
    const { secret: key } = await makeKey(db, { companyId: a.company.id });
    const slug = "local-chat-latest";
    const call = () =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: slug,
          max_tokens: 50,
          messages: [{ role: "user", content: "what does it cost" }],
        }),
      });
    // Cached by the server before the operator's change.
    expect((await getModel(key, slug)).body.pricing).toMatchObject({ input: 100, cached_input: 10, output: 400 });

    const set = runCli([
      "model",
      "price",
      "--company",
      a.company.id,
      "--model",
      slug,
      "--input",
      "1000",
      "--cached-input",
      "100",
      "--output",
      "2000",
    ]);
    expect(set.json).toEqual({
      company_id: a.company.id,
      model: slug,
      pricing: { input: 1000, cached_input: 100, output: 2000 },
    });
    await expect
      .poll(async () => (await getModel(key, slug)).body.pricing)
      .toMatchObject({ input: 1000, cached_input: 100, output: 2000 });

    const res = await call();
    expect(res.status).toBe(200);
    const { usage } = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    const [entry] = await db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.companyId, a.company.id), eq(ledgerEntries.kind, "completion")));
    expect(entry!.amountMicro).toBe(-(usage.prompt_tokens * 1000 + usage.completion_tokens * 2000));

    // The hold is the worst case at the operator's price too: 50 output tokens at 200,000 O₮/M is 10 O₮, above the balance.
    expect(
      runCli([
        "model",
        "price",
        "--company",
        a.company.id,
        "--model",
        slug,
        "--input",
        "1000",
        "--cached-input",
        "100",
        "--output",
        "200000",
      ]).code,
    ).toBe(0);
    await expect.poll(async () => (await getModel(key, slug)).body.pricing.output).toBe(200000);
    expect((await call()).status).toBe(402);

    const reset = runCli(["model", "price", "--company", a.company.id, "--model", slug, "--reset"]);
    expect(reset.json).toEqual({
      company_id: a.company.id,
      model: slug,
      pricing: { input: 100, cached_input: 10, output: 400 },
    });
    await expect
      .poll(async () => (await getModel(key, slug)).body.pricing)
      .toMatchObject({ input: 100, cached_input: 10, output: 400 });
  });
});
