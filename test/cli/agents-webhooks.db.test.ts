import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { agents, webhooks } from "@/db/schema";
import { createProfile, CreateProfileInput, deleteProfile } from "@/lib/profiles";
import { makeCompany } from "../support/factories";
import { runCli } from "../support/run-cli";

describe("operator CLI: agent create and webhook create (CONTRACT 3)", () => {
  it("an agent of a (soft-deleted) profile, a bound and an unbound webhook, exactly CONTRACT 3's output", async () => {
    const company = await makeCompany(db);
    const profile = await createProfile(db, {
      companyId: company.id,
      input: CreateProfileInput.parse({ name: "Conductor", model_slug: "local-mini" }),
    });
    // A soft-deleted profile still resolves by id: an agent may be created on it.
    await deleteProfile(db, { companyId: company.id, profileId: profile.id });

    const agent = runCli([
      "agent",
      "create",
      "--company",
      company.id,
      "--profile",
      profile.id,
      "--name",
      "Orders",
      "--topics",
      "orders.*,billing.>",
    ]);
    expect(agent.code).toBe(0);
    expect(agent.stdout.trim().split("\n")).toHaveLength(1);
    expect(agent.json).toEqual({ agent_id: expect.stringMatching(/^agent_/), conductor_profile_id: profile.id });
    const [row] = await db.select().from(agents).where(eq(agents.id, agent.json.agent_id));
    expect(row).toMatchObject({
      companyId: company.id,
      name: "Orders",
      topics: ["orders.*", "billing.>"],
      isActive: true,
    });

    const bound = runCli([
      "webhook",
      "create",
      "--company",
      company.id,
      "--agent",
      agent.json.agent_id,
      "--name",
      "Shop",
    ]);
    expect(bound.code).toBe(0);
    expect(bound.json).toEqual({
      webhook_id: expect.stringMatching(/^wh_/),
      secret: expect.any(String),
      url: `/v1/public/triggers/${company.id}/${bound.json.secret}`,
    });
    const [hook] = await db.select().from(webhooks).where(eq(webhooks.id, bound.json.webhook_id));
    // Only the hash of the secret is stored.
    expect(hook).toMatchObject({
      agentId: agent.json.agent_id,
      name: "Shop",
      secretHash: createHash("sha256").update(bound.json.secret).digest("hex"),
    });
    expect(JSON.stringify(hook)).not.toContain(bound.json.secret);

    const bus = runCli(["webhook", "create", "--company", company.id]);
    expect(bus.code).toBe(0);
    expect(Object.keys(bus.json).sort()).toEqual(["secret", "url", "webhook_id"]);
    expect(bus.json.secret).not.toBe(bound.json.secret);
    const [busHook] = await db.select().from(webhooks).where(eq(webhooks.id, bus.json.webhook_id));
    expect(busHook!.agentId).toBeNull();
  });

  it('errors are {"error":…} with exit 1: another company\'s profile or agent, a bad topic, a missing flag', async () => {
    const a = await makeCompany(db);
    const b = await makeCompany(db);
    const profileB = await createProfile(db, {
      companyId: b.id,
      input: CreateProfileInput.parse({ name: "B", model_slug: "local-mini" }),
    });
    const noModel = await createProfile(db, { companyId: a.id, input: CreateProfileInput.parse({ name: "No model" }) });

    const foreign = runCli(["agent", "create", "--company", a.id, "--profile", profileB.id, "--name", "X"]);
    expect(foreign.code).toBe(1);
    expect(foreign.json.error).toMatch(/profile/i);

    const modelless = runCli(["agent", "create", "--company", a.id, "--profile", noModel.id, "--name", "X"]);
    expect(modelless.code).toBe(1);
    expect(modelless.json.error).toMatch(/model/);

    const badTopic = runCli([
      "agent",
      "create",
      "--company",
      b.id,
      "--profile",
      profileB.id,
      "--name",
      "X",
      "--topics",
      "orders..x",
    ]);
    expect(badTopic.code).toBe(1);
    expect(badTopic.json).toHaveProperty("error");

    const agentB = runCli(["agent", "create", "--company", b.id, "--profile", profileB.id, "--name", "B agent"]);
    expect(agentB.code).toBe(0);
    const crossHook = runCli(["webhook", "create", "--company", a.id, "--agent", agentB.json.agent_id]);
    expect(crossHook.code).toBe(1);
    expect(crossHook.json.error).toMatch(/agent/);

    const missing = runCli(["webhook", "create"]);
    expect(missing.code).toBe(1);
    expect(missing.json.error).toMatch(/--company/);
  });
});
