import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { profiles } from "@/db/schema";
import * as collection from "@/app/v1/profiles/route";
import * as item from "@/app/v1/profiles/[profileId]/route";
import { setModelOverride } from "@/lib/models";
import { composeProfiles, createProfile, CreateProfileInput } from "@/lib/profiles";
import { callRoute } from "../support/call-route";
import { makeCollection, makeCompany, makeKey, makeTool } from "../support/factories";
import { withRollback } from "../support/with-rollback";

async function tenant() {
  const company = await makeCompany(db);
  const { secret } = await makeKey(db, { companyId: company.id, scopes: ["chat"] });
  return { companyId: company.id, key: secret };
}

describe("/v1/profiles", () => {
  let key: string;
  let companyId: string;
  let otherKey: string;
  let viewKey: string;

  beforeAll(async () => {
    ({ key, companyId } = await tenant());
    // Profiles may only name the company's active tools.
    for (const name of ["lookup", "t1"]) await makeTool(db, { companyId, name });
    otherKey = (await tenant()).key;
    viewKey = (await makeKey(db, { companyId, scopes: ["view"] })).secret;
  });

  const create = (body: unknown, k = key) =>
    callRoute(collection.POST, { method: "POST", key: k, body, path: "/v1/profiles" });
  const get = (id: string, k = key) =>
    callRoute(item.GET, { key: k, params: { profileId: id }, path: `/v1/profiles/${id}` });
  const patch = (id: string, body: unknown, k = key) =>
    callRoute(item.PATCH, { method: "PATCH", key: k, body, params: { profileId: id }, path: `/v1/profiles/${id}` });
  const del = (id: string, k = key) =>
    callRoute(item.DELETE, { method: "DELETE", key: k, params: { profileId: id }, path: `/v1/profiles/${id}` });
  const list = (query = "", k = key) => callRoute(collection.GET, { key: k, path: `/v1/profiles${query}` });

  it("POST creates (201) with every SPEC field, defaults filled; GET returns the full payload", async () => {
    const [ka, kb] = [(await makeCollection(db, { companyId })).id, (await makeCollection(db, { companyId })).id];
    const res = await create({
      name: "Support",
      system_prompt: "You are support.",
      model_slug: "local-mini",
      knowledge_base_ids: [ka, kb, ka],
      allowed_tool_names: ["lookup"],
      use_kb: false,
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      object: "profile",
      name: "Support",
      system_prompt: "You are support.",
      model_slug: "local-mini",
      knowledge_base_ids: [ka, kb],
      allowed_tool_names: ["lookup"],
      use_kb: false,
      use_tools: true,
      is_default: false,
      is_active: true,
    });
    expect(res.json.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(typeof res.json.created_at).toBe("number");
    expect(typeof res.json.updated_at).toBe("number");
    const got = await get(res.json.id);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(res.json);

    const minimal = await create({ name: "Bare" });
    expect(minimal.status).toBe(201);
    expect(minimal.json).toMatchObject({
      system_prompt: "",
      model_slug: null,
      knowledge_base_ids: [],
      allowed_tool_names: [],
      is_default: false,
    });
  });

  it.each([
    [{}, "name"],
    [{ name: "" }, "name"],
    [{ name: "x", use_kb: "yes" }, "use_kb"],
    [{ name: "x", knowledge_base_ids: "kc_a" }, "knowledge_base_ids"],
    [{ name: "x", colour: "red" }, "colour"],
    [{ name: "x\u0000" }, "name"],
  ])("400 with param for %j", async (body, param) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: "invalid_request_error", param });
  });

  it("knowledge_base_ids must be the company's active collections: unknown, another company's or deactivated → 400 naming it", async () => {
    const other = await tenant();
    const theirs = (await makeCollection(db, { companyId: other.companyId })).id;
    const inactive = (await makeCollection(db, { companyId, isActive: false })).id;
    for (const id of ["kc_nope", theirs, inactive]) {
      const res = await create({ name: "x", knowledge_base_ids: [id] });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({
        type: "invalid_request_error",
        param: "knowledge_base_ids",
        code: "collection_not_found",
      });
      expect(res.json.error.message).toContain(id);
    }
    const ok = await create({ name: "x" });
    const badPatch = await patch(ok.json.id, { knowledge_base_ids: [theirs] });
    expect(badPatch.status).toBe(400);
    expect(badPatch.json.error.param).toBe("knowledge_base_ids");
  });

  it("model_slug: unknown or hidden → 404 model_not_found; disabled claude- slug → 400 naming the or- replacement", async () => {
    const unknown = await create({ name: "x", model_slug: "no-such-model" });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ type: "not_found_error", code: "model_not_found", param: "model_slug" });

    const { companyId: hiddenCo, key: hiddenKey } = await tenant();
    await setModelOverride(db, { companyId: hiddenCo, slug: "local-mini", input: { hidden: true } });
    const hidden = await create({ name: "x", model_slug: "local-mini" }, hiddenKey);
    expect(hidden.status).toBe(404);
    expect(hidden.json.error.code).toBe("model_not_found");

    const disabled = await create({ name: "x", model_slug: "claude-sonnet-4-5" });
    expect(disabled.status).toBe(400);
    expect(disabled.json.error).toMatchObject({ code: "model_disabled", param: "model_slug" });
    expect(disabled.json.error.message).toContain("or-claude-sonnet-4-5");

    const ok = await create({ name: "x" });
    const badPatch = await patch(ok.json.id, { model_slug: "claude-sonnet-4-5" });
    expect(badPatch.status).toBe(400);
    expect(badPatch.json.error.code).toBe("model_disabled");
  });

  it("list: active only, list envelope, summary without full, bindings with full=true, paginated", async () => {
    const { key: k, companyId: co } = await tenant();
    const k1 = (await makeCollection(db, { companyId: co })).id;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await create({ name: `P${i}`, system_prompt: `prompt ${i}`, knowledge_base_ids: [k1] }, k)).json.id);
    await del(ids[1]!, k);

    const summary = await list("", k);
    expect(summary.status).toBe(200);
    expect(summary.json).toMatchObject({ object: "list", has_more: false, first_id: ids[2], last_id: ids[0] });
    expect(summary.json.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[0]]);
    for (const p of summary.json.data) {
      expect(p).not.toHaveProperty("system_prompt");
      expect(p).not.toHaveProperty("knowledge_base_ids");
      expect(p).not.toHaveProperty("allowed_tool_names");
      expect(p).toMatchObject({ object: "profile", is_active: true });
    }
    const full = await list("?full=true", k);
    expect(full.json.data[0]).toMatchObject({
      system_prompt: "prompt 2",
      knowledge_base_ids: [k1],
      allowed_tool_names: [],
    });

    const page1 = await list("?limit=1&order=asc", k);
    expect(page1.json).toMatchObject({ has_more: true, first_id: ids[0] });
    const page2 = await list(`?limit=1&order=asc&after=${ids[0]}`, k);
    expect(page2.json).toMatchObject({ has_more: false, first_id: ids[2] });
    expect((await list("?limit=101", k)).status).toBe(400);
    const badAfter = await list("?after=not-a-uuid", k);
    expect(badAfter.status).toBe(400);
    expect(badAfter.json.error.param).toBe("after");
  });

  it("PATCH changes only the given fields (200); model_slug null clears it", async () => {
    const p = (await create({ name: "A", system_prompt: "keep", model_slug: "local-mini", allowed_tool_names: ["t1"] }))
      .json;
    const res = await patch(p.id, { name: "B", use_tools: false });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: p.id,
      name: "B",
      system_prompt: "keep",
      model_slug: "local-mini",
      allowed_tool_names: ["t1"],
      use_tools: false,
    });
    const cleared = await patch(p.id, { model_slug: null });
    expect(cleared.json.model_slug).toBeNull();
    const bad = await patch(p.id, { is_default: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe("is_default");
  });

  it("DELETE soft-deletes (200 deleted body); still readable with is_active false; gone from the list; a second DELETE or a PATCH → 409", async () => {
    const p = (await create({ name: "Doomed", is_default: true })).json;
    const res = await del(p.id);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: p.id, object: "profile", deleted: true });
    const got = await get(p.id);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ id: p.id, is_active: false, is_default: false, name: "Doomed" });
    const all = await list("?limit=100");
    expect(all.json.data.some((x: { id: string }) => x.id === p.id)).toBe(false);
    expect((await del(p.id)).status).toBe(409);
    const revived = await patch(p.id, { name: "Back" });
    expect(revived.status).toBe(409);
    expect(revived.json.error.type).toBe("conflict_error");
  });

  it("another company's profile, an unknown id and a non-UUID id are 404 on every verb", async () => {
    const mine = (await create({ name: "Mine" })).json.id;
    for (const id of [mine, randomUUID(), "not-a-uuid"]) {
      const k = id === mine ? otherKey : key;
      for (const res of [await get(id, k), await patch(id, { name: "x" }, k), await del(id, k)]) {
        expect(res.status).toBe(404);
        expect(res.json.error.type).toBe("not_found_error");
      }
    }
    expect((await get(mine)).json.name).toBe("Mine");
  });

  it("403 for a key without the chat scope", async () => {
    const res = await list("", viewKey);
    expect(res.status).toBe(403);
    expect(res.json.error.type).toBe("permission_error");
    expect((await create({ name: "x" }, viewKey)).status).toBe(403);
  });

  it("is_default on POST or PATCH demotes the previous default", async () => {
    const { key: k } = await tenant();
    const a = (await create({ name: "A", is_default: true }, k)).json;
    expect(a.is_default).toBe(true);
    const b = (await create({ name: "B", is_default: true }, k)).json;
    expect(b.is_default).toBe(true);
    expect((await get(a.id, k)).json.is_default).toBe(false);
    const again = await patch(a.id, { is_default: true }, k);
    expect(again.json.is_default).toBe(true);
    expect((await get(b.id, k)).json.is_default).toBe(false);
    const off = await patch(a.id, { is_default: false }, k);
    expect(off.json.is_default).toBe(false);
  });

  it("20 concurrent PATCHes setting is_default: every one 200, exactly one default after (the last to commit)", async () => {
    const { key: k, companyId: co } = await tenant();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await create({ name: `D${i}`, is_default: i === 0 }, k)).json.id);
    const results = await Promise.all(ids.map((id) => patch(id, { is_default: true }, k)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const defaults = await db
      .select()
      .from(profiles)
      .where(and(eq(profiles.companyId, co), eq(profiles.isDefault, true)));
    expect(defaults).toHaveLength(1);
    // Last writer wins: the default is the row written last (each promotion first demotes the previous one).
    const rows = await db.select().from(profiles).where(eq(profiles.companyId, co));
    expect(defaults[0]!.updatedAt.getTime()).toBe(Math.max(...rows.map((r) => r.updatedAt.getTime())));
  });

  it("the database refuses a second active default even without the API", async () => {
    await withRollback(async (tx) => {
      const co = await makeCompany(tx);
      await tx.insert(profiles).values({ companyId: co.id, name: "a", isDefault: true });
      await tx.insert(profiles).values({ companyId: co.id, name: "gone", isDefault: true, isActive: false });
      await expect(tx.insert(profiles).values({ companyId: co.id, name: "b", isDefault: true })).rejects.toThrow();
    });
  });
});

describe("composeProfiles", () => {
  const make = (tx: Parameters<typeof createProfile>[0], companyId: string, input: Record<string, unknown>) =>
    createProfile(tx, { companyId, input: CreateProfileInput.parse(input) });

  it("profile_ids in order: prompts concatenated in order then instructions; lists unioned first-seen; toggles and overrides", async () => {
    await withRollback(async (tx) => {
      const co = (await makeCompany(tx)).id;
      for (const name of ["t1", "t2"]) await makeTool(tx, { companyId: co, name });
      const [k1, k2, k3] = [
        (await makeCollection(tx, { companyId: co })).id,
        (await makeCollection(tx, { companyId: co })).id,
        (await makeCollection(tx, { companyId: co })).id,
      ];
      const a = await make(tx, co, {
        name: "A",
        system_prompt: "prompt A",
        knowledge_base_ids: [k1, k2],
        allowed_tool_names: ["t1"],
        use_kb: false,
        use_tools: false,
      });
      const b = await make(tx, co, {
        name: "B",
        system_prompt: "prompt B",
        model_slug: "local-mini",
        knowledge_base_ids: [k2, k3],
        allowed_tool_names: ["t2", "t1"],
        use_kb: true,
        use_tools: false,
      });
      const empty = await make(tx, co, { name: "Empty" });
      await make(tx, co, { name: "Default", system_prompt: "default prompt", is_default: true });

      const c = await composeProfiles(tx, co, { profileIds: [b.id, a.id, empty.id], instructions: "run layer" });
      expect(c).toEqual({
        profiles: [
          { id: b.id, name: "B" },
          { id: a.id, name: "A" },
          { id: empty.id, name: "Empty" },
        ],
        systemPrompts: ["prompt B", "prompt A", "run layer"],
        knowledgeBaseIds: [k2, k3, k1],
        allowedToolNames: ["t2", "t1"],
        useKb: true,
        useTools: true,
        modelSlug: "local-mini",
      });

      const ab = await composeProfiles(tx, co, { profileIds: [a.id, b.id] });
      expect(ab.systemPrompts).toEqual(["prompt A", "prompt B"]);
      expect(ab.knowledgeBaseIds).toEqual([k1, k2, k3]);
      expect(ab.useTools).toBe(false);

      const forced = await composeProfiles(tx, co, { profileIds: [a.id], useKb: true, useTools: true });
      expect(forced).toMatchObject({ useKb: true, useTools: true });
      const off = await composeProfiles(tx, co, { profileIds: [b.id], useKb: false });
      expect(off.useKb).toBe(false);
    });
  });

  it("without profile_ids: the company's default; none: nothing composed but instructions; [] opts out of the default", async () => {
    await withRollback(async (tx) => {
      const co = (await makeCompany(tx)).id;
      const none = await composeProfiles(tx, co, { instructions: "only this" });
      expect(none).toMatchObject({
        profiles: [],
        systemPrompts: ["only this"],
        knowledgeBaseIds: [],
        allowedToolNames: [],
        useKb: false,
      });
      expect(none.modelSlug).toBeUndefined();

      const kd = (await makeCollection(tx, { companyId: co })).id;
      const d = await make(tx, co, {
        name: "Default",
        system_prompt: "default prompt",
        is_default: true,
        knowledge_base_ids: [kd],
      });
      const viaDefault = await composeProfiles(tx, co, { instructions: "extra" });
      expect(viaDefault).toMatchObject({
        profiles: [{ id: d.id, name: "Default" }],
        systemPrompts: ["default prompt", "extra"],
        knowledgeBaseIds: [kd],
      });
      expect((await composeProfiles(tx, co, { profileIds: [] })).profiles).toEqual([]);
    });
  });

  it("a soft-deleted profile named by id still resolves; as default it no longer applies", async () => {
    await withRollback(async (tx) => {
      const co = (await makeCompany(tx)).id;
      const p = await make(tx, co, { name: "Old", system_prompt: "old prompt", is_default: true });
      await tx.update(profiles).set({ isActive: false, isDefault: false }).where(eq(profiles.id, p.id));
      const named = await composeProfiles(tx, co, { profileIds: [p.id] });
      expect(named.systemPrompts).toEqual(["old prompt"]);
      expect((await composeProfiles(tx, co)).profiles).toEqual([]);
    });
  });

  it("an unknown, malformed or other company's id → 404 naming profile_ids", async () => {
    await withRollback(async (tx) => {
      const co = (await makeCompany(tx)).id;
      const other = (await makeCompany(tx)).id;
      const mine = await make(tx, co, { name: "Mine" });
      const theirs = await make(tx, other, { name: "Theirs" });
      for (const ids of [[mine.id, theirs.id], [randomUUID()], ["nope"]]) {
        const err = await composeProfiles(tx, co, { profileIds: ids }).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: "not_found", param: "profile_ids" });
      }
      expect((await composeProfiles(tx, co, { profileIds: [mine.id.toUpperCase()] })).profiles).toEqual([
        { id: mine.id, name: "Mine" },
      ]);
    });
  });
});
