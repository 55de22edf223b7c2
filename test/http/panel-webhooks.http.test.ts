import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { threads, webhookEventRuns, webhookEvents } from "@/db/schema";
import { grantCredits } from "@/lib/billing";
import { createProfile, CreateProfileInput } from "@/lib/profiles";
import { makeCompany, makeUser } from "../support/factories";
import { useGateway } from "../support/gateway";
import { signInToPanel } from "../support/panel-sign-in";

/**
 * The panel's agents and webhooks (/agents, /webhooks and /api/panel/…): create an agent and an
 * endpoint, POST to the endpoint's URL as a sender would, see the event `done` in the log with the
 * thread it woke; pause an agent; rotate a secret (the previous one keeps working); replay a failed event;
 * edit an agent; pause, resume and rebind an endpoint.
 */
const gw = useGateway({ env: { JOBS_IDLE_CHECK_S: "1" } });

async function tenant(creditsOt = 100) {
  const company = await makeCompany(db, { creditsOt });
  const { user, password } = await makeUser(db, { companyId: company.id });
  const cookie = await signInToPanel(gw.server.url, user.email, password);
  const profile = await createProfile(db, {
    companyId: company.id,
    input: CreateProfileInput.parse({ name: "Conductor", model_slug: "local-mini" }),
  });
  return { companyId: company.id, cookie, profileId: profile.id };
}

async function panel(
  cookie: string | null,
  path: string,
  init: { method?: string; body?: unknown; crossSite?: boolean } = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (cookie) headers.cookie = cookie;
  headers["sec-fetch-site"] = init.crossSite ? "cross-site" : "same-origin";
  const res = await fetch(`${gw.server.url}${path}`, {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, json, text };
}

/** CONTRACT 4's error body. */
const apiError = (type: string, code: string, param: string | null = null) => ({
  error: { message: expect.any(String), type, code, param },
});

async function send(url: string, body: unknown) {
  const res = await fetch(`${gw.server.url}${url}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function settled(id: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [event] = await db.select().from(webhookEvents).where(eq(webhookEvents.id, id));
    if (event && ["done", "failed", "dead"].includes(event.status)) return event;
    if (Date.now() > deadline) throw new Error(`event ${id} not final`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("panel: agents and webhooks", () => {
  it("without a session 401, cross-site 403; nothing created", async () => {
    const { cookie, profileId } = await tenant();
    for (const [method, path] of [
      ["GET", "/api/panel/agents"],
      ["POST", "/api/panel/agents"],
      ["POST", "/api/panel/webhooks"],
      ["PATCH", "/api/panel/agents/agent_x"],
      ["PATCH", "/api/panel/webhooks/wh_x"],
      ["POST", "/api/panel/webhooks/wh_x/rotate"],
      ["POST", "/api/panel/webhook-events/evt_x/replay"],
    ] as const) {
      expect(
        (await panel(null, path, { method, body: method === "GET" ? undefined : {} })).status,
        `${method} ${path}`,
      ).toBe(401);
    }
    const cross = await panel(cookie, "/api/panel/agents", {
      method: "POST",
      crossSite: true,
      body: { name: "x", conductor_profile_id: profileId },
    });
    expect(cross.status).toBe(403);
    expect((await panel(cookie, "/api/panel/agents")).json.data).toEqual([]);
  });

  it("create an agent and an endpoint, send to its URL, the event turns done with the woken thread; pause; rotate; another company's ids 404", async () => {
    const { companyId, cookie, profileId } = await tenant();
    const agent = await panel(cookie, "/api/panel/agents", {
      method: "POST",
      body: { name: "Order desk", conductor_profile_id: profileId, topics: ["orders.*"] },
    });
    expect(agent.status).toBe(201);
    expect(agent.json).toMatchObject({
      id: expect.stringMatching(/^agent_/),
      name: "Order desk",
      topics: ["orders.*"],
      is_active: true,
    });
    const hook = await panel(cookie, "/api/panel/webhooks", {
      method: "POST",
      body: { agent_id: agent.json.id, name: "Shop" },
    });
    expect(hook.status).toBe(201);
    expect(hook.json).toEqual({
      webhook_id: expect.stringMatching(/^wh_/),
      secret: expect.any(String),
      url: `/v1/public/triggers/${companyId}/${hook.json.secret}`,
    });

    const sent = await send(hook.json.url, { event_topic: "orders.created", payload: { order: 7 } });
    expect(sent.status).toBe(202);
    expect((await settled(sent.json.id)).status).toBe("done");
    const page = await panel(cookie, "/webhooks");
    expect(page.status).toBe(200);
    expect(page.text).toContain(sent.json.id);
    expect(page.text).toContain("Shop");
    expect(page.text).toMatch(/data-testid="event-status"[^>]*>done</);
    expect(page.text).toMatch(/threads\?source=webhook&amp;thread=thread_/);
    const agentsPage = await panel(cookie, "/agents");
    expect(agentsPage.status).toBe(200);
    expect(agentsPage.text).toContain("Order desk");

    // Paused: the endpoint's next event wakes nothing.
    const paused = await panel(cookie, `/api/panel/agents/${agent.json.id}`, {
      method: "PATCH",
      body: { is_active: false },
    });
    expect(paused.json.is_active).toBe(false);
    const quiet = await send(hook.json.url, { event_topic: "orders.created", payload: {} });
    expect(await settled(quiet.json.id)).toMatchObject({ status: "done" });
    const woken = await db
      .select()
      .from(threads)
      .where(and(eq(threads.companyId, companyId), eq(threads.source, "webhook")));
    expect(woken).toHaveLength(1);

    // Rotation: both secrets work during the grace period.
    const rotated = await panel(cookie, `/api/panel/webhooks/${hook.json.webhook_id}/rotate`, {
      method: "POST",
      body: {},
    });
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).not.toBe(hook.json.secret);
    expect((await send(rotated.json.url, { event_topic: "a.b", payload: {} })).status).toBe(202);
    expect((await send(hook.json.url, { event_topic: "a.b", payload: {} })).status).toBe(202);

    const other = await tenant();
    expect(
      (await panel(other.cookie, `/api/panel/agents/${agent.json.id}`, { method: "PATCH", body: { is_active: true } }))
        .status,
    ).toBe(404);
    expect(
      (await panel(other.cookie, `/api/panel/webhooks/${hook.json.webhook_id}/rotate`, { method: "POST", body: {} }))
        .status,
    ).toBe(404);
    expect(
      (await panel(other.cookie, `/api/panel/webhook-events/${sent.json.id}/replay`, { method: "POST", body: {} }))
        .status,
    ).toBe(404);
    expect(
      (await panel(other.cookie, "/api/panel/webhooks", { method: "POST", body: { agent_id: agent.json.id } })).status,
    ).toBe(404);
  });

  it("replay: an event failed for want of credit runs again once the company has credit; a done event is not replayable (409)", async () => {
    const { companyId, cookie, profileId } = await tenant(0);
    const agent = await panel(cookie, "/api/panel/agents", {
      method: "POST",
      body: { name: "Broke", conductor_profile_id: profileId },
    });
    const hook = await panel(cookie, "/api/panel/webhooks", { method: "POST", body: { agent_id: agent.json.id } });
    const sent = await send(hook.json.url, { event_topic: "orders.created", payload: {} });
    expect(await settled(sent.json.id)).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/^insufficient_balance/),
    });
    await grantCredits(db, { companyId, amountMicro: 100_000_000, entry: { source: "test", metadata: {} } });
    const replay = await panel(cookie, `/api/panel/webhook-events/${sent.json.id}/replay`, {
      method: "POST",
      body: {},
    });
    expect(replay.status).toBe(200);
    expect(replay.json).toMatchObject({ id: sent.json.id, status: "routed" });
    expect(await settled(sent.json.id)).toMatchObject({ status: "done", error: null });
    const again = await panel(cookie, `/api/panel/webhook-events/${sent.json.id}/replay`, { method: "POST", body: {} });
    expect(again.status).toBe(409);
  });

  it("edit an agent: each field alone; another company's agent or profile is a 404; bad fields and an empty body are 400s", async () => {
    const { companyId, cookie, profileId } = await tenant();
    const second = await createProfile(db, {
      companyId,
      input: CreateProfileInput.parse({ name: "Second", model_slug: "local-mini" }),
    });
    const modelless = await createProfile(db, { companyId, input: CreateProfileInput.parse({ name: "No model" }) });
    const created = await panel(cookie, "/api/panel/agents", {
      method: "POST",
      body: { name: "Desk", conductor_profile_id: profileId, topics: ["orders.*"] },
    });
    const path = `/api/panel/agents/${created.json.id}`;
    const base = {
      id: created.json.id,
      object: "agent",
      name: "Desk",
      conductor_profile_id: profileId,
      topics: ["orders.*"],
      is_active: true,
      created_at: created.json.created_at,
    };

    const renamed = await panel(cookie, path, { method: "PATCH", body: { name: "  Billing desk " } });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toEqual({ ...base, name: "Billing desk" });
    const moved = await panel(cookie, path, { method: "PATCH", body: { conductor_profile_id: second.id } });
    expect(moved.json).toEqual({ ...base, name: "Billing desk", conductor_profile_id: second.id });
    const retopic = await panel(cookie, path, {
      method: "PATCH",
      body: { topics: ["billing.>", "billing.>", "*.refunded"] },
    });
    expect(retopic.json).toEqual({
      ...base,
      name: "Billing desk",
      conductor_profile_id: second.id,
      topics: ["billing.>", "*.refunded"],
    });
    const paused = await panel(cookie, path, { method: "PATCH", body: { is_active: false } });
    expect(paused.json.is_active).toBe(false);
    const all = await panel(cookie, path, {
      method: "PATCH",
      body: { name: "Desk", conductor_profile_id: profileId, topics: [], is_active: true },
    });
    expect(all.json).toEqual({ ...base, topics: [] });

    const expected = { ...base, name: "Kept", topics: ["billing.>"] };
    expect(
      (await panel(cookie, path, { method: "PATCH", body: { name: "Kept", topics: ["billing.>"] } })).json,
    ).toEqual(expected);
    for (const [body, param] of [
      [{}, null],
      [{ topics: ["orders.#"] }, "topics.0"],
      [{ topics: "orders.*" }, "topics"],
      [{ topics: ["orders.>.x"] }, "topics.0"],
      [{ name: "   " }, "name"],
      [{ is_active: "no" }, "is_active"],
      [{ colour: "red" }, "colour"],
    ] as const) {
      const bad = await panel(cookie, path, { method: "PATCH", body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.json, JSON.stringify(body)).toEqual(apiError("invalid_request_error", "invalid_value", param));
    }
    const noModel = await panel(cookie, path, { method: "PATCH", body: { conductor_profile_id: modelless.id } });
    expect(noModel.status).toBe(400);
    expect(noModel.json.error.param).toBe("conductor_profile_id");

    // Another company's profile: the same 404 as an unknown one, never a 403.
    const other = await tenant();
    for (const id of [other.profileId, "00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const foreign = await panel(cookie, path, {
        method: "PATCH",
        body: { name: "Stolen", conductor_profile_id: id },
      });
      expect(foreign.status, id).toBe(404);
      expect(foreign.json, id).toEqual(apiError("not_found_error", "profile_not_found", "conductor_profile_id"));
    }
    // Another company's agent: 404 whatever the body (its own profile included), and nothing changes.
    for (const body of [{ name: "Taken" }, { conductor_profile_id: other.profileId }, { is_active: false }]) {
      const foreign = await panel(other.cookie, path, { method: "PATCH", body });
      expect(foreign.status, JSON.stringify(body)).toBe(404);
      expect(foreign.json, JSON.stringify(body)).toEqual(apiError("not_found_error", "agent_not_found"));
    }
    expect((await panel(cookie, "/api/panel/agents")).json.data).toEqual([expected]);

    // The new topics route the bus: an unbound endpoint's billing event wakes the agent.
    const bus = await panel(cookie, "/api/panel/webhooks", { method: "POST", body: { name: "Bus" } });
    const sent = await send(bus.json.url, { event_topic: "billing.paid", payload: { invoice: 1 } });
    expect(sent.status).toBe(202);
    expect((await settled(sent.json.id)).status).toBe("done");
    const woke = await db.select().from(webhookEventRuns).where(eq(webhookEventRuns.eventId, sent.json.id));
    expect(woke.map((r) => r.agentId)).toEqual([created.json.id]);
  });

  it("pause an endpoint: its next delivery is refused at once (the cached endpoint evicted), resume accepts again; rebind; another company's endpoint is a 404", async () => {
    const { cookie, profileId } = await tenant();
    const agent = await panel(cookie, "/api/panel/agents", {
      method: "POST",
      body: { name: "Desk", conductor_profile_id: profileId },
    });
    const spare = await panel(cookie, "/api/panel/agents", {
      method: "POST",
      body: { name: "Spare", conductor_profile_id: profileId },
    });
    const hook = await panel(cookie, "/api/panel/webhooks", {
      method: "POST",
      body: { agent_id: agent.json.id, name: "Shop" },
    });
    const path = `/api/panel/webhooks/${hook.json.webhook_id}`;
    const event = { event_topic: "orders.created", payload: {} };

    // Delivered before the pause, so the server holds the endpoint in its trigger cache.
    expect((await send(hook.json.url, event)).status).toBe(202);
    expect((await send(hook.json.url, event)).status).toBe(202);
    const paused = await panel(cookie, path, { method: "PATCH", body: { is_active: false } });
    expect(paused.status).toBe(200);
    expect(paused.json).toMatchObject({
      id: hook.json.webhook_id,
      object: "webhook",
      name: "Shop",
      agent_id: agent.json.id,
      is_active: false,
    });
    const refused = await send(hook.json.url, event);
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual(apiError("permission_error", "invalid_webhook"));
    const page = await panel(cookie, "/webhooks");
    expect(page.text).toMatch(/data-testid="webhook-status"[^>]*>paused</);

    const resumed = await panel(cookie, path, { method: "PATCH", body: { is_active: true } });
    expect(resumed.json.is_active).toBe(true);
    expect((await send(hook.json.url, event)).status).toBe(202);

    // Rebinding: to the bus, to another agent; another company's agent is a 404 and changes nothing.
    expect((await panel(cookie, path, { method: "PATCH", body: { agent_id: null } })).json).toMatchObject({
      agent_id: null,
      is_active: true,
    });
    expect(
      (await panel(cookie, path, { method: "PATCH", body: { agent_id: spare.json.id, is_active: false } })).json,
    ).toMatchObject({ agent_id: spare.json.id, is_active: false });
    const other = await tenant();
    const foreignAgent = await panel(other.cookie, "/api/panel/agents", {
      method: "POST",
      body: { name: "Theirs", conductor_profile_id: other.profileId },
    });
    const stolen = await panel(cookie, path, {
      method: "PATCH",
      body: { agent_id: foreignAgent.json.id, is_active: true },
    });
    expect(stolen.status).toBe(404);
    expect(stolen.json).toEqual(apiError("not_found_error", "agent_not_found", "agent_id"));
    expect((await send(hook.json.url, event)).status).toBe(403);

    for (const [body, param] of [
      [{}, null],
      [{ is_active: "yes" }, "is_active"],
      [{ agent_id: "" }, "agent_id"],
      [{ name: "x" }, "name"],
    ] as const) {
      const bad = await panel(cookie, path, { method: "PATCH", body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.json, JSON.stringify(body)).toEqual(apiError("invalid_request_error", "invalid_value", param));
    }

    // Another company's endpoint: 404, and it stays as it was (paused).
    for (const body of [{ is_active: true }, { agent_id: foreignAgent.json.id }]) {
      const foreign = await panel(other.cookie, path, { method: "PATCH", body });
      expect(foreign.status, JSON.stringify(body)).toBe(404);
      expect(foreign.json).toEqual(apiError("not_found_error", "webhook_not_found"));
    }
    expect(
      (await panel(other.cookie, "/api/panel/webhooks/wh_unknown", { method: "PATCH", body: { is_active: true } }))
        .status,
    ).toBe(404);
    expect((await send(hook.json.url, event)).status).toBe(403);
    expect((await panel(cookie, path, { method: "PATCH", body: { is_active: true } })).json).toMatchObject({
      agent_id: spare.json.id,
      is_active: true,
    });
    expect((await send(hook.json.url, event)).status).toBe(202);
  });
});
