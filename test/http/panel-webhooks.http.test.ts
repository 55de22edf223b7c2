import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { threads, webhookEvents } from "@/db/schema";
import { grantCredits } from "@/lib/billing";
import { createProfile, CreateProfileInput } from "@/lib/profiles";
import { makeCompany, makeUser } from "../support/factories";
import { useGateway } from "../support/gateway";
import { signInToPanel } from "../support/panel-sign-in";

/**
 * The panel's agents and webhooks (/agents, /webhooks and /api/panel/…): create an agent and an
 * endpoint, POST to the endpoint's URL as a sender would, see the event `done` in the log with the
 * thread it woke; pause an agent; rotate a secret (the previous one keeps working); replay a failed event.
 */
const gw = useGateway({ env: { JOBS_IDLE_CHECK_S: "1" } });

async function tenant(creditsOt = 100) {
  const company = await makeCompany(db, { creditsOt });
  const { user, password } = await makeUser(db, { companyId: company.id });
  const cookie = await signInToPanel(gw.server.url, user.email, password);
  const profile = await createProfile(db, { companyId: company.id, input: CreateProfileInput.parse({ name: "Conductor", model_slug: "local-mini" }) });
  return { companyId: company.id, cookie, profileId: profile.id };
}

async function panel(cookie: string | null, path: string, init: { method?: string; body?: unknown; crossSite?: boolean } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (cookie) headers.cookie = cookie;
  headers["sec-fetch-site"] = init.crossSite ? "cross-site" : "same-origin";
  const res = await fetch(`${gw.server.url}${path}`, { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, json, text };
}

async function send(url: string, body: unknown) {
  const res = await fetch(`${gw.server.url}${url}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
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
      ["POST", "/api/panel/webhooks/wh_x/rotate"],
      ["POST", "/api/panel/webhook-events/evt_x/replay"],
    ] as const) {
      expect((await panel(null, path, { method, body: method === "GET" ? undefined : {} })).status, `${method} ${path}`).toBe(401);
    }
    const cross = await panel(cookie, "/api/panel/agents", { method: "POST", crossSite: true, body: { name: "x", conductor_profile_id: profileId } });
    expect(cross.status).toBe(403);
    expect((await panel(cookie, "/api/panel/agents")).json.data).toEqual([]);
  });

  it("create an agent and an endpoint, send to its URL, the event turns done with the woken thread; pause; rotate; another company's ids 404", async () => {
    const { companyId, cookie, profileId } = await tenant();
    const agent = await panel(cookie, "/api/panel/agents", { method: "POST", body: { name: "Order desk", conductor_profile_id: profileId, topics: ["orders.*"] } });
    expect(agent.status).toBe(201);
    expect(agent.json).toMatchObject({ id: expect.stringMatching(/^agent_/), name: "Order desk", topics: ["orders.*"], is_active: true });
    const hook = await panel(cookie, "/api/panel/webhooks", { method: "POST", body: { agent_id: agent.json.id, name: "Shop" } });
    expect(hook.status).toBe(201);
    expect(hook.json).toEqual({ webhook_id: expect.stringMatching(/^wh_/), secret: expect.any(String), url: `/v1/public/triggers/${companyId}/${hook.json.secret}` });

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
    const paused = await panel(cookie, `/api/panel/agents/${agent.json.id}`, { method: "PATCH", body: { is_active: false } });
    expect(paused.json.is_active).toBe(false);
    const quiet = await send(hook.json.url, { event_topic: "orders.created", payload: {} });
    expect(await settled(quiet.json.id)).toMatchObject({ status: "done" });
    const woken = await db.select().from(threads).where(and(eq(threads.companyId, companyId), eq(threads.source, "webhook")));
    expect(woken).toHaveLength(1);

    // Rotation: both secrets work during the grace period.
    const rotated = await panel(cookie, `/api/panel/webhooks/${hook.json.webhook_id}/rotate`, { method: "POST", body: {} });
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).not.toBe(hook.json.secret);
    expect((await send(rotated.json.url, { event_topic: "a.b", payload: {} })).status).toBe(202);
    expect((await send(hook.json.url, { event_topic: "a.b", payload: {} })).status).toBe(202);

    const other = await tenant();
    expect((await panel(other.cookie, `/api/panel/agents/${agent.json.id}`, { method: "PATCH", body: { is_active: true } })).status).toBe(404);
    expect((await panel(other.cookie, `/api/panel/webhooks/${hook.json.webhook_id}/rotate`, { method: "POST", body: {} })).status).toBe(404);
    expect((await panel(other.cookie, `/api/panel/webhook-events/${sent.json.id}/replay`, { method: "POST", body: {} })).status).toBe(404);
    expect((await panel(other.cookie, "/api/panel/webhooks", { method: "POST", body: { agent_id: agent.json.id } })).status).toBe(404);
  });

  it("replay: an event failed for want of credit runs again once the company has credit; a done event is not replayable (409)", async () => {
    const { companyId, cookie, profileId } = await tenant(0);
    const agent = await panel(cookie, "/api/panel/agents", { method: "POST", body: { name: "Broke", conductor_profile_id: profileId } });
    const hook = await panel(cookie, "/api/panel/webhooks", { method: "POST", body: { agent_id: agent.json.id } });
    const sent = await send(hook.json.url, { event_topic: "orders.created", payload: {} });
    expect(await settled(sent.json.id)).toMatchObject({ status: "failed", error: expect.stringMatching(/^insufficient_balance/) });
    await grantCredits(db, { companyId, amountMicro: 100_000_000, entry: { source: "test", metadata: {} } });
    const replay = await panel(cookie, `/api/panel/webhook-events/${sent.json.id}/replay`, { method: "POST", body: {} });
    expect(replay.status).toBe(200);
    expect(replay.json).toMatchObject({ id: sent.json.id, status: "routed" });
    expect(await settled(sent.json.id)).toMatchObject({ status: "done", error: null });
    const again = await panel(cookie, `/api/panel/webhook-events/${sent.json.id}/replay`, { method: "POST", body: {} });
    expect(again.status).toBe(409);
  });
});
