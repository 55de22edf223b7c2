import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey, makeTool } from "../support/factories";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * /v1/tools over real HTTP against the production build (SPEC "Tools", CONTRACT 4 and 5.6).
 * Tests marked "sandbox" create or change code through the API, so the code check runs in the real
 * Python sandbox (lib/sandbox); the others seed tools with the factory and need no sandbox.
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
  const { secret } = await makeKey(db, { companyId: company.id, scopes: ["chat"] });
  return { companyId: company.id, key: secret };
}

async function call(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

const schema = { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] };
const addBody = (name = "add") => ({
  name,
  description: "Adds two numbers",
  json_schema: schema,
  python_code: `def ${name}(a, b):\n    return a + b\n`,
});
const ids = (list: { data: { id: string }[] }) => list.data.map((t) => t.id);

describe("/v1/tools: records, paging, soft delete, tenancy", () => {
  it("GET by id: SPEC fields + id, object, created_at, updated_at; x-request-id", async () => {
    const { companyId, key } = await tenant();
    const t = await makeTool(db, { companyId, name: "lookup", jsonSchema: schema });
    const res = await call(key, "GET", `/v1/tools/${t.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.json).toEqual({
      id: t.id,
      object: "tool",
      name: "lookup",
      description: t.description,
      json_schema: schema,
      python_code: t.pythonCode,
      is_active: true,
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
  });

  it("POST of a name the company already has active answers 200 with that tool, unchanged", async () => {
    const { companyId, key } = await tenant();
    const t = await makeTool(db, { companyId, name: "add", jsonSchema: schema });
    const before = (await call(key, "GET", `/v1/tools/${t.id}`)).json;
    const res = await call(key, "POST", "/v1/tools", { ...addBody("add"), description: "changed?" });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(before);
    expect((await call(key, "GET", `/v1/tools/${t.id}`)).json).toEqual(before);
  });

  it("PATCH description, json_schema and is_active (no code change: no sandbox needed)", async () => {
    const { companyId, key } = await tenant();
    const t = await makeTool(db, { companyId, name: "patchy" });
    const d = await call(key, "PATCH", `/v1/tools/${t.id}`, { description: "new words" });
    expect(d.status).toBe(200);
    expect(d.json).toMatchObject({ id: t.id, description: "new words", name: "patchy" });
    const s = await call(key, "PATCH", `/v1/tools/${t.id}`, { json_schema: schema });
    expect(s.json.json_schema).toEqual(schema);
    const off = await call(key, "PATCH", `/v1/tools/${t.id}`, { is_active: false });
    expect(off.json.is_active).toBe(false);
    expect(ids((await call(key, "GET", "/v1/tools")).json)).toContain(t.id);
    const on = await call(key, "PATCH", `/v1/tools/${t.id}`, { is_active: true });
    expect(on.json.is_active).toBe(true);
    const bad = await call(key, "PATCH", `/v1/tools/${t.id}`, { json_schema: { type: "objekt" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ type: "invalid_request_error", param: "json_schema" });
    expect((await call(key, "PATCH", `/v1/tools/${t.id}`, { is_active: "yes" })).json.error.param).toBe("is_active");
    expect((await call(key, "PATCH", `/v1/tools/${t.id}`, { name: "no-dashes" })).json.error.param).toBe("name");
  });

  it("a deactivated tool frees its name; re-activating it while the name is taken is a 409 naming is_active", async () => {
    const { companyId, key } = await tenant();
    const old = await makeTool(db, { companyId, name: "swap", isActive: false });
    const fresh = await makeTool(db, { companyId, name: "swap" });
    expect(fresh.id).not.toBe(old.id);
    const res = await call(key, "PATCH", `/v1/tools/${old.id}`, { is_active: true });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ type: "conflict_error", code: "tool_name_taken", param: "is_active" });
  });

  it("DELETE: {id, object, deleted}; readable by id with is_active false; leaves the list; frees the name; again → 409", async () => {
    const { companyId, key } = await tenant();
    const t = await makeTool(db, { companyId, name: "gone", jsonSchema: schema });
    const res = await call(key, "DELETE", `/v1/tools/${t.id}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: t.id, object: "tool", deleted: true });
    expect((await call(key, "GET", `/v1/tools/${t.id}`)).json).toMatchObject({
      id: t.id,
      name: "gone",
      is_active: false,
    });
    expect(ids((await call(key, "GET", "/v1/tools")).json)).not.toContain(t.id);
    expect((await call(key, "DELETE", `/v1/tools/${t.id}`)).status).toBe(409);
    const revive = await call(key, "PATCH", `/v1/tools/${t.id}`, { is_active: true });
    expect(revive.status).toBe(409);
    expect(revive.json.error.code).toBe("tool_deleted");
    // The name is free: a tool of that name can exist again (creation through the API: see the sandbox suite).
    const again = await makeTool(db, { companyId, name: "gone" });
    expect(again.id).not.toBe(t.id);
  });

  it("lists page with limit, after and order (default desc); limit above 100 or an unknown after is a 400", async () => {
    const { companyId, key } = await tenant();
    const made: string[] = [];
    for (const name of ["p1", "p2", "p3"]) made.push((await makeTool(db, { companyId, name })).id);
    const all = await call(key, "GET", "/v1/tools");
    expect(all.json).toMatchObject({ object: "list", first_id: made[2], last_id: made[0], has_more: false });
    const p1 = await call(key, "GET", "/v1/tools?limit=2&order=asc");
    expect(p1.json).toMatchObject({ first_id: made[0], last_id: made[1], has_more: true });
    const p2 = await call(key, "GET", `/v1/tools?limit=2&order=asc&after=${made[1]}`);
    expect(p2.json).toMatchObject({ first_id: made[2], last_id: made[2], has_more: false });
    expect((await call(key, "GET", "/v1/tools?limit=101")).json.error.param).toBe("limit");
    expect((await call(key, "GET", "/v1/tools?after=tool_unknown")).json.error.param).toBe("after");
  });

  it("another company's tool is a 404 on GET, PATCH and DELETE; a key without chat is a 403; OPTIONS preflight", async () => {
    const a = await tenant();
    const b = await tenant();
    const t = await makeTool(db, { companyId: a.companyId, name: "mine" });
    for (const [method, body] of [["GET"], ["PATCH", { description: "x" }], ["DELETE"]] as const) {
      const res = await call(b.key, method, `/v1/tools/${t.id}`, body);
      expect(res.status, method).toBe(404);
      expect(res.json.error.type).toBe("not_found_error");
    }
    expect(ids((await call(b.key, "GET", "/v1/tools")).json)).toEqual([]);
    expect((await call(a.key, "GET", `/v1/tools/${t.id}`)).json.description).toBe(t.description);
    const view = (await makeKey(db, { companyId: a.companyId, scopes: ["view"] })).secret;
    expect((await call(view, "GET", "/v1/tools")).status).toBe(403);
    expect((await call(view, "POST", "/v1/tools", addBody())).status).toBe(403);
    const pre = await fetch(`${server.url}/v1/tools`, {
      method: "OPTIONS",
      headers: { origin: "https://example.com", "access-control-request-method": "POST" },
    });
    expect(pre.status).toBeLessThan(300);
    expect(pre.headers.get("access-control-allow-origin")).toBeTruthy();
  });

  it("400s naming the field, before any sandbox: name, json_schema, description, unknown field, bad JSON", async () => {
    const { key } = await tenant();
    for (const [body, param] of [
      [{ ...addBody(), name: "1add" }, "name"],
      [{ ...addBody(), name: "add two" }, "name"],
      [{ ...addBody(), name: "lambda" }, "name"],
      [{ ...addBody(), name: "a".repeat(65) }, "name"],
      [{ ...addBody(), json_schema: { type: "objekt" } }, "json_schema"],
      [{ ...addBody(), json_schema: { type: "array", items: {} } }, "json_schema"],
      [{ ...addBody(), json_schema: { type: "object", properties: { a: { type: "numbr" } } } }, "json_schema"],
      [{ ...addBody(), json_schema: { type: "object", required: ["missing"] } }, "json_schema"],
      [
        { ...addBody(), json_schema: { type: "object", properties: { a: { $ref: "https://example.com/x.json" } } } },
        "json_schema",
      ],
      [{ ...addBody(), json_schema: [] }, "json_schema"],
      [{ ...addBody(), description: ["x"] }, "description"],
      [{ ...addBody(), python_code: "" }, "python_code"],
      [{ ...addBody(), extra: 1 }, "extra"],
    ] as const) {
      const res = await call(key, "POST", "/v1/tools", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toMatchObject({ type: "invalid_request_error", param });
    }
    const raw = await fetch(`${server.url}/v1/tools`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: "{",
    });
    expect(raw.status).toBe(400);
  });

  it("profiles accept only the company's active tools in allowed_tool_names (400 naming it)", async () => {
    const a = await tenant();
    const b = await tenant();
    await makeTool(db, { companyId: a.companyId, name: "crm_lookup" });
    await makeTool(db, { companyId: a.companyId, name: "parked", isActive: false });
    const ok = await call(a.key, "POST", "/v1/profiles", { name: "Sales", allowed_tool_names: ["crm_lookup"] });
    expect(ok.status).toBe(201);
    expect(ok.json.allowed_tool_names).toEqual(["crm_lookup"]);
    for (const [key, names] of [
      [a.key, ["nope"]],
      [a.key, ["crm_lookup", "parked"]],
      [b.key, ["crm_lookup"]],
    ] as const) {
      const res = await call(key, "POST", "/v1/profiles", { name: "X", allowed_tool_names: names });
      expect(res.status, names.join()).toBe(400);
      expect(res.json.error.param).toBe("allowed_tool_names");
    }
    const patched = await call(a.key, "PATCH", `/v1/profiles/${ok.json.id}`, { allowed_tool_names: ["parked"] });
    expect(patched.status).toBe(400);
    expect(patched.json.error.param).toBe("allowed_tool_names");
  });
});

describe("/v1/tools with the real sandbox (code checked in Python)", () => {
  it("POST creates (201) with SPEC fields and a tool_ id; a second POST answers 200 with it unchanged", async () => {
    const { key } = await tenant();
    const res = await call(key, "POST", "/v1/tools", addBody("add"));
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      object: "tool",
      name: "add",
      description: "Adds two numbers",
      json_schema: schema,
      is_active: true,
    });
    expect(res.json.id).toMatch(/^tool_[0-9A-Za-z]{22}$/);
    expect(res.json.python_code).toBe(addBody("add").python_code);
    const again = await call(key, "POST", "/v1/tools", {
      ...addBody("add"),
      python_code: "def add():\n    return 0\n",
    });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(res.json);
  });

  it("10 concurrent identical POSTs create exactly one tool: one 201 and nine 200 with the same id", async () => {
    const { key } = await tenant();
    const all = await Promise.all(Array.from({ length: 10 }, () => call(key, "POST", "/v1/tools", addBody("racer"))));
    expect(all.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(all.map((r) => r.json.id)).size).toBe(1);
    expect((await call(key, "GET", "/v1/tools")).json.data).toHaveLength(1);
  });

  it("python_code: a syntax error, or no function named like the tool, is a 400 naming python_code", async () => {
    const { key } = await tenant();
    for (const code of [
      "def add(a, b)\n    return a + b\n",
      "def plus(a, b):\n    return a + b\n",
      "# def add(a, b):\nadd = 3\n",
      "x = (\n",
    ]) {
      const res = await call(key, "POST", "/v1/tools", { ...addBody("add"), python_code: code });
      expect(res.status, code).toBe(400);
      expect(res.json.error).toMatchObject({ type: "invalid_request_error", param: "python_code" });
    }
    expect((await call(key, "GET", "/v1/tools")).json.data).toEqual([]);
  });

  it("PATCH name and code are checked together; a name the code does not define is a 400 on python_code", async () => {
    const { key } = await tenant();
    const t = (await call(key, "POST", "/v1/tools", addBody("first"))).json;
    const bad = await call(key, "PATCH", `/v1/tools/${t.id}`, { name: "second" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe("python_code");
    const profile = (
      await call(key, "POST", "/v1/profiles", { name: "uses first", allowed_tool_names: ["first"], use_tools: true })
    ).json;
    const code = "def second(a, b):\n    return a * b\n";
    const ok = await call(key, "PATCH", `/v1/tools/${t.id}`, { name: "second", python_code: code });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ id: t.id, name: "second", python_code: code });
    // A profile that offered the tool follows the rename.
    expect((await call(key, "GET", `/v1/profiles/${profile.id}`)).json.allowed_tool_names).toEqual(["second"]);
    const syntax = await call(key, "PATCH", `/v1/tools/${t.id}`, { python_code: "def second(:\n" });
    expect(syntax.status).toBe(400);
    expect(syntax.json.error.param).toBe("python_code");
    // Another active tool's name: 409 naming name.
    await call(key, "POST", "/v1/tools", addBody("third"));
    const clash = await call(key, "PATCH", `/v1/tools/${t.id}`, {
      name: "third",
      python_code: "def third(a, b):\n    return 0\n",
    });
    expect(clash.status).toBe(409);
    expect(clash.json.error.param).toBe("name");
  });

  it("soft delete frees the name: a new POST with it creates a new id; the old one stays readable, inactive", async () => {
    const { key } = await tenant();
    const t = (await call(key, "POST", "/v1/tools", addBody("phoenix"))).json;
    expect((await call(key, "DELETE", `/v1/tools/${t.id}`)).status).toBe(200);
    const reborn = await call(key, "POST", "/v1/tools", addBody("phoenix"));
    expect(reborn.status).toBe(201);
    expect(reborn.json.id).not.toBe(t.id);
    expect((await call(key, "GET", `/v1/tools/${t.id}`)).json).toMatchObject({ is_active: false, name: "phoenix" });
    expect(ids((await call(key, "GET", "/v1/tools")).json)).toEqual([reborn.json.id]);
  });

  it("a schema's pattern cannot stall a run: the model's arguments are checked on RE2, never a backtracking engine", async () => {
    const { key } = await tenant();
    const json_schema = { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } }, required: ["s"] };
    expect(
      (
        await call(key, "POST", "/v1/tools", {
          name: "matcher",
          json_schema,
          python_code: "def matcher(s):\n    return len(s)\n",
        })
      ).status,
    ).toBe(201);
    // On a backtracking engine, (a+)+$ against 40 a's and a '!' takes 2^40 steps.
    const evil = `${"a".repeat(40)}!`;
    const created = await call(key, "POST", "/v1/threads", {
      messages: [{ role: "user", content: `check {"s": "${evil}"}` }],
    });
    const started = Date.now();
    const res = await call(key, "POST", `/v1/threads/${created.json.id}/runs`, {
      model: "local-mini",
      tool_choice: { type: "function", function: { name: "matcher" } },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(res.json.tool_calls).toEqual([
      { name: "matcher", args: { s: evil }, result: { error: expect.stringContaining("pattern") } },
    ]);
  });
});
