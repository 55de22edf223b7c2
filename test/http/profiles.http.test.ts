import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { createProfile, CreateProfileInput } from "@/lib/profiles";
import { makeCompany, makeKey } from "../support/factories";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * Profiles over real HTTP against the production build, and what chat completions send upstream
 * once a company has profiles (CONTRACT 5.9): the composed system prompts before the request's own.
 */
let fake: FakeUpstream;
let server: RunningServer;

beforeAll(async () => {
  fake = await startFakeUpstream();
  server = await startNextServer({
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    OPENAI_BASE_URL: fake.openaiBase,
    OPENAI_API_KEY: "sk-upstream-test",
    LOG_LEVEL: "error",
  });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

beforeEach(() => {
  fake.requests.length = 0;
  fake.queue.length = 0;
});

async function tenant() {
  const company = await makeCompany(db, { creditsOt: 100 });
  const { secret } = await makeKey(db, { companyId: company.id });
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

const complete = (key: string, body: Record<string, unknown>) =>
  call(key, "POST", "/v1/chat/completions", {
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: "hi" }],
    ...body,
  });

/** The messages the fake upstream received for the one call of this test. */
function upstreamMessages(): { role: string; content: string }[] {
  expect(fake.requests).toHaveLength(1);
  return fake.requests[0]!.body.messages;
}

/** Until a condition holds (cross-process cache eviction arrives over LISTEN/NOTIFY). */
async function eventually(fn: () => Promise<boolean>, ms = 3000) {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("/v1/profiles over HTTP", () => {
  it("every verb answers with its contract status; OPTIONS preflight; 405 in the OpenAI body", async () => {
    const { key } = await tenant();
    const created = await call(key, "POST", "/v1/profiles", {
      name: "Sales",
      system_prompt: "Sell.",
      model_slug: "gpt-4o-mini",
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-request-id")).toBeTruthy();
    const id = created.json.id;
    expect((await call(key, "GET", `/v1/profiles/${id}`)).json).toMatchObject({
      id,
      system_prompt: "Sell.",
      is_active: true,
    });
    expect((await call(key, "PATCH", `/v1/profiles/${id}`, { name: "Sales 2" })).json.name).toBe("Sales 2");
    const listed = await call(key, "GET", "/v1/profiles");
    expect(listed.json).toMatchObject({ object: "list", first_id: id, last_id: id, has_more: false });
    expect(listed.json.data[0]).not.toHaveProperty("system_prompt");
    expect((await call(key, "GET", "/v1/profiles?full=true")).json.data[0].system_prompt).toBe("Sell.");
    expect((await call(key, "DELETE", `/v1/profiles/${id}`)).json).toEqual({ id, object: "profile", deleted: true });
    expect((await call(key, "GET", `/v1/profiles/${id}`)).json.is_active).toBe(false);
    expect((await call(key, "GET", "/v1/profiles")).json.data).toEqual([]);

    const other = await tenant();
    expect((await call(other.key, "GET", `/v1/profiles/${id}`)).status).toBe(404);
    expect((await call(other.key, "GET", "/v1/profiles/%00")).status).toBe(404);

    const put = await call(key, "PUT", `/v1/profiles/${id}`, {});
    expect(put.status).toBe(405);
    expect(put.json.error.type).toBe("invalid_request_error");
    const pre = await fetch(`${server.url}/v1/profiles`, {
      method: "OPTIONS",
      headers: { origin: "https://example.com", "access-control-request-method": "POST" },
    });
    expect(pre.status).toBeLessThan(300);
    expect(pre.headers.get("access-control-allow-origin")).toBeTruthy();
  });

  it("20 concurrent is_default PATCHes through the server: no 5xx, exactly one default", async () => {
    const { key } = await tenant();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await call(key, "POST", "/v1/profiles", { name: `P${i}` })).json.id);
    const results = await Promise.all(ids.map((id) => call(key, "PATCH", `/v1/profiles/${id}`, { is_default: true })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const all = (await call(key, "GET", "/v1/profiles?limit=100")).json.data;
    expect(all.filter((p: { is_default: boolean }) => p.is_default)).toHaveLength(1);
  });
});

describe("chat completions with profiles", () => {
  it("a company without profiles sends exactly the request's messages", async () => {
    const { key } = await tenant();
    const res = await complete(key, {
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
    });
    expect(res.status).toBe(200);
    expect(upstreamMessages()).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ]);
  });

  it("the default profile's system prompt comes before the request's system messages; edits and deletes apply at once", async () => {
    const { key } = await tenant();
    const p = (
      await call(key, "POST", "/v1/profiles", { name: "House", system_prompt: "House rules.", is_default: true })
    ).json;
    // Non-default profiles do not apply.
    await call(key, "POST", "/v1/profiles", { name: "Other", system_prompt: "Not me." });

    expect(
      (
        await complete(key, {
          messages: [
            { role: "system", content: "Be brief." },
            { role: "user", content: "hi" },
          ],
        })
      ).status,
    ).toBe(200);
    expect(upstreamMessages()).toEqual([
      { role: "system", content: "House rules.\n\nBe brief." },
      { role: "user", content: "hi" },
    ]);

    fake.requests.length = 0;
    await call(key, "PATCH", `/v1/profiles/${p.id}`, { system_prompt: "New rules." });
    const stream = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(stream.status).toBe(200);
    expect(await stream.text()).toContain("[DONE]");
    expect(upstreamMessages()[0]).toEqual({ role: "system", content: "New rules." });

    fake.requests.length = 0;
    await call(key, "DELETE", `/v1/profiles/${p.id}`);
    await complete(key, {});
    expect(upstreamMessages()).toEqual([{ role: "user", content: "hi" }]);
  });

  it("a default set by another process (the CLI, a second server) reaches the server's cache", async () => {
    const { key, companyId } = await tenant();
    await complete(key, {});
    expect(upstreamMessages()).toEqual([{ role: "user", content: "hi" }]);
    await createProfile(db, {
      companyId,
      input: CreateProfileInput.parse({ name: "Ops", system_prompt: "From elsewhere.", is_default: true }),
    });
    await eventually(async () => {
      fake.requests.length = 0;
      await complete(key, {});
      return upstreamMessages()[0]!.content === "From elsewhere.";
    });
  });

  it("profile_ids replaces the default, composes in order, resolves a deleted profile; unknown → 404 before any upstream call", async () => {
    const { key } = await tenant();
    const mk = async (name: string, extra: Record<string, unknown> = {}) =>
      (await call(key, "POST", "/v1/profiles", { name, system_prompt: `${name} prompt.`, ...extra })).json.id as string;
    await mk("Default", { is_default: true });
    const a = await mk("A");
    const b = await mk("B");
    await call(key, "DELETE", `/v1/profiles/${b}`);

    expect((await complete(key, { profile_ids: [b, a] })).status).toBe(200);
    expect(upstreamMessages()[0]).toEqual({ role: "system", content: "B prompt.\n\nA prompt." });

    fake.requests.length = 0;
    expect((await complete(key, { profile_ids: [] })).status).toBe(200);
    expect(upstreamMessages()).toEqual([{ role: "user", content: "hi" }]);

    fake.requests.length = 0;
    const other = await tenant();
    const theirs = (await call(other.key, "POST", "/v1/profiles", { name: "Theirs" })).json.id;
    for (const ids of [[a, randomUUID()], [theirs]]) {
      const res = await complete(key, { profile_ids: ids });
      expect(res.status).toBe(404);
      expect(res.json.error).toMatchObject({ type: "not_found_error", param: "profile_ids" });
    }
    const malformed = await complete(key, { profile_ids: ["nope"] });
    expect(malformed.status).toBe(400);
    expect(fake.requests).toHaveLength(0);
  });
});
