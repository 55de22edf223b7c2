import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { createGuardrail, CreateGuardrailInput } from "@/lib/guardrails";
import { createProfile, CreateProfileInput, getProfileInCompany } from "@/lib/profiles";
import { makeCompany, makeKey, makeUser } from "../support/factories";
import { startNextServer, type RunningServer } from "../support/next-server";
import { signInToPanel } from "../support/panel-sign-in";

/**
 * The panel's guardrails and profiles endpoints (/api/panel/guardrails, /api/panel/profiles) over
 * real HTTP with an Auth.js session: the session's company only, 401 without one, 403 cross-site,
 * 404 for another company's ids, and the "try it" box running the company's active rules.
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

interface Rule {
  id: string;
  name: string;
  stage: string;
  action: string;
  is_active: boolean;
  match: { type: string; pattern: string };
}
interface Trial {
  fired: { id: string; name: string; action: string; stage: string }[];
  blocked: boolean;
  text: string;
}
interface PublicProfile {
  id: string;
  name: string;
  system_prompt: string;
  model_slug: string | null;
  is_default: boolean;
  is_active: boolean;
}

describe("auth and CSRF", () => {
  it("without a session every endpoint is a 401 in the OpenAI shape", async () => {
    for (const [method, path] of [
      ["GET", "/api/panel/guardrails"],
      ["POST", "/api/panel/guardrails"],
      ["POST", "/api/panel/guardrails/try"],
      ["PATCH", "/api/panel/guardrails/guardrail_x"],
      ["DELETE", "/api/panel/guardrails/guardrail_x"],
      ["GET", "/api/panel/profiles"],
      ["POST", "/api/panel/profiles"],
      ["PATCH", "/api/panel/profiles/00000000-0000-4000-8000-000000000000"],
      ["DELETE", "/api/panel/profiles/00000000-0000-4000-8000-000000000000"],
    ] as const) {
      const res = await panel(null, path, { method, body: method === "GET" || method === "DELETE" ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(((await res.json()) as { error: { type: string } }).error.type).toBe("authentication_error");
    }
  });

  it("a cross-site state change is a 403 and changes nothing", async () => {
    const { company, cookie } = await tenant();
    const rule = await panel(cookie, "/api/panel/guardrails", {
      method: "POST",
      crossSite: true,
      body: { name: "x", stage: "input", match: { type: "keyword", pattern: "x" }, action: "flag" },
    });
    expect(rule.status).toBe(403);
    const profile = await panel(cookie, "/api/panel/profiles", {
      method: "POST",
      crossSite: true,
      body: { name: "x" },
    });
    expect(profile.status).toBe(403);
    const list = (await (await panel(cookie, "/api/panel/guardrails")).json()) as { data: Rule[] };
    expect(list.data).toHaveLength(0);
    expect(company.id).toBeTruthy();
  });
});

describe("/api/panel/guardrails", () => {
  it("create, list, toggle off and on, delete; a refused regex is a 400 naming match.pattern", async () => {
    const { cookie } = await tenant();
    const created = await panel(cookie, "/api/panel/guardrails", {
      method: "POST",
      body: { name: "No secrets", stage: "input", match: { type: "keyword", pattern: "secret" }, action: "redact" },
    });
    expect(created.status).toBe(201);
    const rule = (await created.json()) as Rule;
    expect(rule).toMatchObject({
      name: "No secrets",
      stage: "input",
      action: "redact",
      is_active: true,
      match: { type: "keyword", pattern: "secret" },
    });

    const list = (await (await panel(cookie, "/api/panel/guardrails")).json()) as { data: Rule[] };
    expect(list.data.map((r) => r.id)).toEqual([rule.id]);

    const off = await panel(cookie, `/api/panel/guardrails/${rule.id}`, {
      method: "PATCH",
      body: { is_active: false },
    });
    expect(off.status).toBe(200);
    expect(((await off.json()) as Rule).is_active).toBe(false);
    const on = await panel(cookie, `/api/panel/guardrails/${rule.id}`, { method: "PATCH", body: { is_active: true } });
    expect(((await on.json()) as Rule).is_active).toBe(true);

    const bad = await panel(cookie, "/api/panel/guardrails", {
      method: "POST",
      body: { name: "Backref", stage: "input", match: { type: "regex", pattern: "(a)\\1" }, action: "block" },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { type: string; param: string } }).error).toMatchObject({
      type: "invalid_request_error",
    });

    const del = await panel(cookie, `/api/panel/guardrails/${rule.id}`, { method: "DELETE" });
    expect(del.status).toBe(200);
    expect(await del.json()).toMatchObject({ id: rule.id, deleted: true });
    expect((await panel(cookie, `/api/panel/guardrails/${rule.id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("another company's rule: PATCH and DELETE are 404 and it is untouched; it never fires in this company's try box", async () => {
    const a = await tenant();
    const other = await makeCompany(db, { creditsOt: 1 });
    const theirs = await createGuardrail(db, {
      companyId: other.id,
      input: CreateGuardrailInput.parse({
        name: "Theirs",
        stage: "input",
        match: { type: "keyword", pattern: "banana" },
        action: "block",
      }),
    });
    expect(
      (await panel(a.cookie, `/api/panel/guardrails/${theirs.id}`, { method: "PATCH", body: { is_active: false } }))
        .status,
    ).toBe(404);
    expect((await panel(a.cookie, `/api/panel/guardrails/${theirs.id}`, { method: "DELETE" })).status).toBe(404);
    const list = (await (await panel(a.cookie, "/api/panel/guardrails")).json()) as { data: Rule[] };
    expect(list.data).toHaveLength(0);
    const trial = (await (
      await panel(a.cookie, "/api/panel/guardrails/try", { method: "POST", body: { stage: "input", text: "a banana" } })
    ).json()) as Trial;
    expect(trial).toEqual({ stage: "input", fired: [], blocked: false, text: "a banana" });
  });

  it("try it: the stage's active rules fire in creation order, redaction shows, block stops, inactive ones never fire", async () => {
    const { cookie } = await tenant();
    const make = async (body: unknown) =>
      (await (await panel(cookie, "/api/panel/guardrails", { method: "POST", body })).json()) as Rule;
    const flag = await make({
      name: "Flag card",
      stage: "input",
      match: { type: "keyword", pattern: "card" },
      action: "flag",
    });
    const redact = await make({
      name: "Redact digits",
      stage: "input",
      match: { type: "regex", pattern: "\\d{4}" },
      action: "redact",
    });
    const off = await make({
      name: "Off",
      stage: "input",
      match: { type: "keyword", pattern: "card" },
      action: "block",
      is_active: false,
    });
    await make({ name: "Output only", stage: "output", match: { type: "keyword", pattern: "card" }, action: "block" });

    const tryIt = async (stage: string, text: string) => {
      const res = await panel(cookie, "/api/panel/guardrails/try", { method: "POST", body: { stage, text } });
      expect(res.status).toBe(200);
      return (await res.json()) as Trial;
    };

    const input = await tryIt("input", "my card is 1234 5678");
    expect(input.fired.map((r) => r.id)).toEqual([flag.id, redact.id]);
    expect(input.fired[1]).toMatchObject({ name: "Redact digits", action: "redact", stage: "input" });
    expect(input.blocked).toBe(false);
    expect(input.text).toBe("my card is [REDACTED] [REDACTED]");
    expect(input.fired.map((r) => r.id)).not.toContain(off.id);

    const output = await tryIt("output", "my card is 1234");
    expect(output.fired.map((r) => r.name)).toEqual(["Output only"]);
    expect(output.blocked).toBe(true);

    const none = await tryIt("input", "nothing to see");
    expect(none).toMatchObject({ fired: [], blocked: false, text: "nothing to see" });

    const bad = await panel(cookie, "/api/panel/guardrails/try", {
      method: "POST",
      body: { stage: "middle", text: "x" },
    });
    expect(bad.status).toBe(400);
  });
});

describe("/api/panel/profiles", () => {
  it("create, list (full objects), edit, default toggle demoting the previous one, soft delete", async () => {
    const { company, cookie } = await tenant();
    const create = async (body: unknown) => {
      const res = await panel(cookie, "/api/panel/profiles", { method: "POST", body });
      expect(res.status).toBe(201);
      return (await res.json()) as PublicProfile;
    };
    const first = await create({
      name: "Support",
      system_prompt: "Be kind.",
      model_slug: "local-chat-latest",
      is_default: true,
    });
    expect(first).toMatchObject({
      name: "Support",
      system_prompt: "Be kind.",
      model_slug: "local-chat-latest",
      is_default: true,
      is_active: true,
    });
    const second = await create({ name: "Sales" });

    const list = (await (await panel(cookie, "/api/panel/profiles?order=asc")).json()) as { data: PublicProfile[] };
    expect(list.data.map((p) => p.id)).toEqual([first.id, second.id]);
    expect(list.data[0]!.system_prompt).toBe("Be kind.");

    const edited = await panel(cookie, `/api/panel/profiles/${second.id}`, {
      method: "PATCH",
      body: { system_prompt: "Sell.", model_slug: "local-chat-latest" },
    });
    expect(edited.status).toBe(200);
    expect(await edited.json()).toMatchObject({
      system_prompt: "Sell.",
      model_slug: "local-chat-latest",
      is_default: false,
    });

    const promoted = await panel(cookie, `/api/panel/profiles/${second.id}`, {
      method: "PATCH",
      body: { is_default: true },
    });
    expect(((await promoted.json()) as PublicProfile).is_default).toBe(true);
    const after = (await (await panel(cookie, "/api/panel/profiles?order=asc")).json()) as { data: PublicProfile[] };
    expect(after.data.filter((p) => p.is_default).map((p) => p.id)).toEqual([second.id]);

    const unknownModel = await panel(cookie, `/api/panel/profiles/${first.id}`, {
      method: "PATCH",
      body: { model_slug: "no-such-model" },
    });
    // As in /v1/profiles: an unknown slug is OpenAI's 404 model_not_found, and nothing changes.
    expect(unknownModel.status).toBe(404);
    expect(((await unknownModel.json()) as { error: { code: string } }).error.code).toBe("model_not_found");

    const del = await panel(cookie, `/api/panel/profiles/${second.id}`, { method: "DELETE" });
    expect(del.status).toBe(200);
    const remaining = (await (await panel(cookie, "/api/panel/profiles")).json()) as { data: PublicProfile[] };
    expect(remaining.data.map((p) => p.id)).toEqual([first.id]);
    // Soft: still readable by id, no longer the default.
    const row = await getProfileInCompany(db, { companyId: company.id, profileId: second.id });
    expect(row).toMatchObject({ isActive: false, isDefault: false });
    expect((await panel(cookie, `/api/panel/profiles/${second.id}`, { method: "DELETE" })).status).toBe(409);
  });

  it("another company's profile: PATCH and DELETE are 404 and it is untouched", async () => {
    const a = await tenant();
    const other = await makeCompany(db, { creditsOt: 1 });
    await makeKey(db, { companyId: other.id });
    const theirs = await createProfile(db, {
      companyId: other.id,
      input: CreateProfileInput.parse({ name: "Theirs", is_default: true }),
    });
    expect(
      (await panel(a.cookie, `/api/panel/profiles/${theirs.id}`, { method: "PATCH", body: { name: "Mine now" } }))
        .status,
    ).toBe(404);
    expect((await panel(a.cookie, `/api/panel/profiles/${theirs.id}`, { method: "DELETE" })).status).toBe(404);
    const row = await getProfileInCompany(db, { companyId: other.id, profileId: theirs.id });
    expect(row).toMatchObject({ name: "Theirs", isActive: true, isDefault: true });
    const list = (await (await panel(a.cookie, "/api/panel/profiles")).json()) as { data: PublicProfile[] };
    expect(list.data).toHaveLength(0);
  });
});
