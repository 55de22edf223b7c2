import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { getToolInCompany } from "@/lib/tools";
import { makeCompany, makeTool, makeUser } from "../support/factories";
import { startNextServer, type RunningServer } from "../support/next-server";
import { signInToPanel } from "../support/panel-sign-in";

/**
 * The panel's tools endpoints (/api/panel/tools…) over real HTTP with an Auth.js session: the
 * session's company only, 401 without one, 403 cross-site, 404 for another company's ids, the
 * live schema check, and "Run with these arguments" (the last needs the real sandbox).
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

async function tenant() {
  const company = await makeCompany(db, { creditsOt: 10 });
  const { user, password } = await makeUser(db, { companyId: company.id });
  const cookie = await signInToPanel(server.url, user.email, password);
  return { company, cookie };
}

async function panel(
  cookie: string | null,
  path: string,
  init: { method?: string; body?: unknown; crossSite?: boolean } = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (cookie) headers.cookie = cookie;
  headers["sec-fetch-site"] = init.crossSite ? "cross-site" : "same-origin";
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const schema = { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] };

describe("/api/panel/tools", () => {
  it("without a session every endpoint is a 401; a cross-site change is a 403 and changes nothing", async () => {
    for (const [method, path] of [
      ["GET", "/api/panel/tools"],
      ["POST", "/api/panel/tools"],
      ["PATCH", "/api/panel/tools/tool_x"],
      ["DELETE", "/api/panel/tools/tool_x"],
      ["POST", "/api/panel/tools/run"],
      ["POST", "/api/panel/tools/check-schema"],
    ] as const) {
      const res = await panel(null, path, { method, body: method === "GET" || method === "DELETE" ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.json.error.type).toBe("authentication_error");
    }
    const { company, cookie } = await tenant();
    const t = await makeTool(db, { companyId: company.id, name: "csrf_target" });
    expect(
      (
        await panel(cookie, `/api/panel/tools/${t.id}`, {
          method: "PATCH",
          body: { is_active: false },
          crossSite: true,
        })
      ).status,
    ).toBe(403);
    expect((await panel(cookie, `/api/panel/tools/${t.id}`, { method: "DELETE", crossSite: true })).status).toBe(403);
    expect((await getToolInCompany(db, { companyId: company.id, toolId: t.id })).isActive).toBe(true);
  });

  it("list, toggle off and on, edit a field, delete (soft: the row stays, inactive)", async () => {
    const { company, cookie } = await tenant();
    const t = await makeTool(db, { companyId: company.id, name: "panel_tool" });
    const list = await panel(cookie, "/api/panel/tools?limit=100&order=asc");
    expect(list.json).toMatchObject({ object: "list", data: [{ id: t.id, name: "panel_tool", is_active: true }] });
    expect(
      (await panel(cookie, `/api/panel/tools/${t.id}`, { method: "PATCH", body: { is_active: false } })).json.is_active,
    ).toBe(false);
    expect(
      (await panel(cookie, `/api/panel/tools/${t.id}`, { method: "PATCH", body: { is_active: true } })).json.is_active,
    ).toBe(true);
    expect(
      (await panel(cookie, `/api/panel/tools/${t.id}`, { method: "PATCH", body: { description: "edited" } })).json
        .description,
    ).toBe("edited");
    const bad = await panel(cookie, `/api/panel/tools/${t.id}`, {
      method: "PATCH",
      body: { json_schema: { type: "objekt" } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe("json_schema");
    const del = await panel(cookie, `/api/panel/tools/${t.id}`, { method: "DELETE" });
    expect(del.json).toEqual({ id: t.id, object: "tool", deleted: true });
    expect((await panel(cookie, "/api/panel/tools")).json.data).toEqual([]);
    const row = await getToolInCompany(db, { companyId: company.id, toolId: t.id });
    expect(row.isActive).toBe(false);
    expect(row.deletedAt).not.toBeNull();
  });

  it("another company's tool: PATCH and DELETE are 404 and it is untouched", async () => {
    const a = await tenant();
    const b = await tenant();
    const t = await makeTool(db, { companyId: a.company.id, name: "theirs" });
    expect(
      (await panel(b.cookie, `/api/panel/tools/${t.id}`, { method: "PATCH", body: { is_active: false } })).status,
    ).toBe(404);
    expect((await panel(b.cookie, `/api/panel/tools/${t.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await panel(b.cookie, "/api/panel/tools")).json.data).toEqual([]);
    expect((await getToolInCompany(db, { companyId: a.company.id, toolId: t.id })).isActive).toBe(true);
  });

  it("check-schema: the API's Ajv rules, as the editor types", async () => {
    const { cookie } = await tenant();
    expect(
      (await panel(cookie, "/api/panel/tools/check-schema", { method: "POST", body: { json_schema: schema } })).json,
    ).toEqual({ ok: true, error: null });
    for (const bad of [{ type: "objekt" }, { type: "string" }, { type: "object", propertiez: {} }, "text", null]) {
      const res = await panel(cookie, "/api/panel/tools/check-schema", { method: "POST", body: { json_schema: bad } });
      expect(res.status).toBe(200);
      expect(res.json.ok, JSON.stringify(bad)).toBe(false);
      expect(res.json.error).toEqual(expect.any(String));
    }
  });

  it("run: arguments that fail the draft schema are an ok:false result without running anything", async () => {
    const { cookie } = await tenant();
    const res = await panel(cookie, "/api/panel/tools/run", {
      method: "POST",
      body: { name: "add", python_code: "def add(a, b):\n    return a + b\n", json_schema: schema, args: { a: 1 } },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: false, error: expect.stringMatching(/required property 'b'/) });
  });
});

describe("/api/panel/tools with the real sandbox", () => {
  it("create through the panel (201, then 200 for the same name)", async () => {
    const { cookie } = await tenant();
    const body = {
      name: "add",
      description: "Adds",
      json_schema: schema,
      python_code: "def add(a, b):\n    return a + b\n",
    };
    const created = await panel(cookie, "/api/panel/tools", { method: "POST", body });
    expect(created.status).toBe(201);
    const again = await panel(cookie, "/api/panel/tools", { method: "POST", body });
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(created.json.id);
  });

  it("run with these arguments: result, stdout and times; a raising tool is ok:false with its error", async () => {
    const { cookie } = await tenant();
    const ok = await panel(cookie, "/api/panel/tools/run", {
      method: "POST",
      body: {
        name: "add",
        python_code: "def add(a, b):\n    print('adding', a, b)\n    return a + b\n",
        json_schema: schema,
        args: { a: 2, b: 3 },
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ ok: true, result: 5, stdout: expect.stringContaining("adding 2 3") });
    expect(ok.json.cpuMs).toEqual(expect.any(Number));
    expect(ok.json.wallMs).toEqual(expect.any(Number));
    const boom = await panel(cookie, "/api/panel/tools/run", {
      method: "POST",
      body: { name: "boom", python_code: "def boom():\n    raise ValueError('nope')\n", args: {} },
    });
    expect(boom.status).toBe(200);
    expect(boom.json).toMatchObject({ ok: false, error: expect.stringContaining("nope") });
  });
});
