import { beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "@/db/client";
import * as collection from "@/app/v1/tools/route";
import * as item from "@/app/v1/tools/[toolId]/route";
import * as profilesRoute from "@/app/v1/profiles/route";
import { activeToolsByName, getActiveToolByName, toolArgsProblem } from "@/lib/tools";
import { callRoute } from "../support/call-route";
import { makeCompany, makeKey } from "../support/factories";
import { withRollback } from "../support/with-rollback";

/**
 * The tools API in process, with a stand-in for the sandbox's code check (the real one runs in a
 * Deno process: test/http/tools.http.test.ts covers it end to end). The stand-in refuses code
 * without `def <name>(`, which is all these rules need to tell apart.
 */
vi.mock("@/lib/sandbox", () => ({
  checkToolCode: vi.fn(async ({ name, code }: { name: string; code: string }) =>
    new RegExp(`^def ${name}\\(`, "m").test(code) ? { ok: true } : { ok: false, error: `no function named '${name}'` },
  ),
  runTool: vi.fn(),
}));

const schema = { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] };
const addBody = (name = "add") => ({
  name,
  description: "Adds two numbers",
  json_schema: schema,
  python_code: `def ${name}(a, b):\n    return a + b\n`,
});

async function tenant() {
  const company = await makeCompany(db);
  const { secret } = await makeKey(db, { companyId: company.id, scopes: ["chat"] });
  return { companyId: company.id, key: secret };
}

describe("/v1/tools (in process)", () => {
  let key: string;
  let companyId: string;
  let otherKey: string;
  let viewKey: string;

  beforeAll(async () => {
    ({ key, companyId } = await tenant());
    otherKey = (await tenant()).key;
    viewKey = (await makeKey(db, { companyId, scopes: ["view"] })).secret;
  });

  const create = (body: unknown, k = key) =>
    callRoute(collection.POST, { method: "POST", key: k, body, path: "/v1/tools" });
  const get = (id: string, k = key) => callRoute(item.GET, { key: k, params: { toolId: id }, path: `/v1/tools/${id}` });
  const patch = (id: string, body: unknown, k = key) =>
    callRoute(item.PATCH, { method: "PATCH", key: k, body, params: { toolId: id }, path: `/v1/tools/${id}` });
  const del = (id: string, k = key) =>
    callRoute(item.DELETE, { method: "DELETE", key: k, params: { toolId: id }, path: `/v1/tools/${id}` });
  const list = (query = "", k = key) => callRoute(collection.GET, { key: k, path: `/v1/tools${query}` });

  it("POST creates (201) with SPEC fields; a second POST of the name answers 200 with it unchanged", async () => {
    const res = await create(addBody("add_once"));
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      object: "tool",
      name: "add_once",
      description: "Adds two numbers",
      json_schema: schema,
      is_active: true,
    });
    expect(res.json.id).toMatch(/^tool_[0-9A-Za-z]{22}$/);
    const again = await create({
      ...addBody("add_once"),
      description: "other",
      python_code: "def add_once():\n    return 0\n",
    });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(res.json);
    expect((await get(res.json.id)).json).toEqual(res.json);
  });

  it("10 concurrent identical POSTs create one tool", async () => {
    const { key: k } = await tenant();
    const all = await Promise.all(Array.from({ length: 10 }, () => create(addBody("racer"), k)));
    expect(all.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(all.map((r) => r.json.id)).size).toBe(1);
    expect((await list("", k)).json.data).toHaveLength(1);
  });

  it("400s name the field: name, json_schema, python_code, description", async () => {
    for (const [body, param] of [
      [{ ...addBody(), name: "1add" }, "name"],
      [{ ...addBody(), name: "add-two" }, "name"],
      [{ ...addBody(), name: "class" }, "name"],
      [{ ...addBody(), name: "x".repeat(65) }, "name"],
      [{ ...addBody(), json_schema: { type: "objekt" } }, "json_schema"],
      [{ ...addBody(), json_schema: { type: "string" } }, "json_schema"],
      [{ ...addBody(), json_schema: { type: "object", propertiez: {} } }, "json_schema"],
      [{ ...addBody(), json_schema: { type: "object", required: ["x"] } }, "json_schema"],
      [{ ...addBody(), json_schema: "nope" }, "json_schema"],
      [{ ...addBody(), python_code: "def other(a, b):\n    return a\n" }, "python_code"],
      [{ ...addBody(), description: 42 }, "description"],
      [{ name: "add", json_schema: schema }, "python_code"],
    ] as const) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toMatchObject({ type: "invalid_request_error", param });
    }
  });

  it("PATCH changes each field; name and code are checked together; is_active toggles", async () => {
    const t = (await create(addBody("patchme"))).json;
    expect((await patch(t.id, { description: "new" })).json).toMatchObject({ description: "new", name: "patchme" });
    const s2 = { type: "object", properties: { a: { type: "integer" } } };
    expect((await patch(t.id, { json_schema: s2 })).json.json_schema).toEqual(s2);
    expect((await patch(t.id, { python_code: "def patchme(a):\n    return a\n" })).json.python_code).toContain(
      "return a\n",
    );
    // A new name the current code does not define: 400 on python_code.
    const renamedBad = await patch(t.id, { name: "renamed" });
    expect(renamedBad.status).toBe(400);
    expect(renamedBad.json.error.param).toBe("python_code");
    const renamed = await patch(t.id, { name: "renamed", python_code: "def renamed(a):\n    return a\n" });
    expect(renamed.json).toMatchObject({ name: "renamed" });
    expect((await patch(t.id, { json_schema: { type: "objekt" } })).json.error.param).toBe("json_schema");
    const off = await patch(t.id, { is_active: false });
    expect(off.json.is_active).toBe(false);
    // Deactivated: still listed (the panel turns it back on), not offered to runs.
    expect((await list()).json.data.map((x: { id: string }) => x.id)).toContain(t.id);
    expect(await activeToolsByName(db, companyId, ["renamed"])).toEqual([]);
    expect((await patch(t.id, { is_active: true })).json.is_active).toBe(true);
    expect((await activeToolsByName(db, companyId, ["renamed"])).map((x) => x.id)).toEqual([t.id]);
    expect((await patch(t.id, { bogus: 1 })).status).toBe(400);
  });

  it("a deactivated tool frees its name; turning it back on while the name is taken is a 409 naming is_active", async () => {
    const t = (await create(addBody("swap"))).json;
    await patch(t.id, { is_active: false });
    const fresh = await create(addBody("swap"));
    expect(fresh.status).toBe(201);
    expect(fresh.json.id).not.toBe(t.id);
    const back = await patch(t.id, { is_active: true });
    expect(back.status).toBe(409);
    expect(back.json.error).toMatchObject({ code: "tool_name_taken", param: "is_active" });
    const other = (await create(addBody("other_name"))).json;
    const clash = await patch(other.id, { name: "swap", python_code: "def swap(a, b):\n    return 1\n" });
    expect(clash.status).toBe(409);
    expect(clash.json.error.param).toBe("name");
  });

  it("DELETE soft-deletes: readable by id with is_active false, leaves the list, frees the name; a second DELETE is 409", async () => {
    const t = (await create(addBody("gone"))).json;
    const res = await del(t.id);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: t.id, object: "tool", deleted: true });
    expect((await get(t.id)).json).toMatchObject({ id: t.id, is_active: false, name: "gone" });
    expect((await list("?limit=100")).json.data.map((x: { id: string }) => x.id)).not.toContain(t.id);
    const reborn = await create(addBody("gone"));
    expect(reborn.status).toBe(201);
    expect(reborn.json.id).not.toBe(t.id);
    expect((await del(t.id)).status).toBe(409);
    expect((await patch(t.id, { is_active: true })).status).toBe(409);
  });

  it("lists page with limit/after/order", async () => {
    const { key: k } = await tenant();
    const ids: string[] = [];
    for (const n of ["p1", "p2", "p3"]) ids.push((await create(addBody(n), k)).json.id);
    const first = await list("?limit=2&order=asc", k);
    expect(first.json).toMatchObject({ object: "list", first_id: ids[0], last_id: ids[1], has_more: true });
    const second = await list(`?limit=2&order=asc&after=${ids[1]}`, k);
    expect(second.json).toMatchObject({ first_id: ids[2], has_more: false });
    expect((await list("", k)).json.first_id).toBe(ids[2]);
    expect((await list("?limit=101", k)).status).toBe(400);
  });

  it("another company's tool is a 404 everywhere; a key without chat is 403", async () => {
    const t = (await create(addBody("mine"))).json;
    expect((await get(t.id, otherKey)).status).toBe(404);
    expect((await patch(t.id, { description: "x" }, otherKey)).status).toBe(404);
    expect((await del(t.id, otherKey)).status).toBe(404);
    expect((await get("tool_nope")).status).toBe(404);
    expect((await list("", viewKey)).status).toBe(403);
    expect((await create(addBody("nokey"), viewKey)).status).toBe(403);
  });

  it("profiles refuse tool names that are not the company's active tools", async () => {
    await create(addBody("bindable"));
    const ok = await callRoute(profilesRoute.POST, {
      method: "POST",
      key,
      path: "/v1/profiles",
      body: { name: "P", allowed_tool_names: ["bindable"] },
    });
    expect(ok.status).toBe(201);
    const bad = await callRoute(profilesRoute.POST, {
      method: "POST",
      key,
      path: "/v1/profiles",
      body: { name: "P", allowed_tool_names: ["bindable", "nope"] },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe("allowed_tool_names");
    const foreign = await callRoute(profilesRoute.POST, {
      method: "POST",
      key: otherKey,
      path: "/v1/profiles",
      body: { name: "P", allowed_tool_names: ["bindable"] },
    });
    expect(foreign.status).toBe(400);
  });

  it("activeToolsByName / getActiveToolByName only see active, non-deleted tools of the company", async () => {
    await withRollback(async (tx) => {
      const co = (await makeCompany(tx)).id;
      const { makeTool } = await import("../support/factories");
      const a = await makeTool(tx, { companyId: co, name: "a" });
      await makeTool(tx, { companyId: co, name: "b", isActive: false });
      expect((await activeToolsByName(tx, co, ["b", "a", "a", "zz"])).map((t) => t.id)).toEqual([a.id]);
      expect((await getActiveToolByName(tx, co, "a")).id).toBe(a.id);
      await expect(getActiveToolByName(tx, co, "b")).rejects.toMatchObject({
        code: "invalid_request",
        param: "tool_choice",
      });
    });
  });

  it("toolArgsProblem checks arguments against the schema (RE2 patterns, no backtracking)", () => {
    expect(toolArgsProblem(schema, { a: 1, b: 2 })).toBeNull();
    expect(toolArgsProblem(schema, { a: 1 })).toMatch(/required property 'b'/);
    const evil = { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } };
    const started = performance.now();
    expect(toolArgsProblem(evil, { s: `${"a".repeat(50_000)}!` })).toMatch(/must match pattern/);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
