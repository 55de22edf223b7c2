import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { webhooks } from "@/db/schema";
import { createAgent, updateAgent } from "@/lib/agents";
import { createProfile, CreateProfileInput } from "@/lib/profiles";
import { createWebhook, updateWebhook } from "@/lib/webhooks";
import { makeCompany } from "../support/factories";

const nameOf = async (id: string) =>
  (await db.select({ name: webhooks.name }).from(webhooks).where(eq(webhooks.id, id)))[0]!.name;

describe("endpoint names follow their binding", () => {
  it("an endpoint named after its agent follows a rename and a rebinding; a name someone chose stays", async () => {
    const company = await makeCompany(db);
    const profile = await createProfile(db, {
      companyId: company.id,
      input: CreateProfileInput.parse({ name: "Conductor", model_slug: "gpt-4o-mini" }),
    });
    const agent = (name: string) =>
      createAgent(db, {
        companyId: company.id,
        input: { name, conductor_profile_id: profile.id, topics: ["orders.*"] },
      });
    const orders = await agent("Orders");
    const billing = await agent("Billing");
    const named = (await createWebhook(db, { companyId: company.id, agentId: orders.id })).webhook;
    const chosen = (await createWebhook(db, { companyId: company.id, agentId: orders.id, name: "Shopify orders" }))
      .webhook;
    expect(named.name).toBe("Orders webhook");

    await updateAgent(db, { companyId: company.id, agentId: orders.id, input: { name: "Order desk" } });
    expect(await nameOf(named.id)).toBe("Order desk webhook");
    expect(await nameOf(chosen.id)).toBe("Shopify orders");

    // Another field changed: the names stay.
    await updateAgent(db, { companyId: company.id, agentId: orders.id, input: { topics: ["orders.>"] } });
    expect(await nameOf(named.id)).toBe("Order desk webhook");

    await updateWebhook(db, { companyId: company.id, webhookId: named.id, input: { agent_id: billing.id } });
    expect(await nameOf(named.id)).toBe("Billing webhook");
    await updateWebhook(db, { companyId: company.id, webhookId: named.id, input: { agent_id: null } });
    expect(await nameOf(named.id)).toBe("Company bus webhook");
    await updateWebhook(db, { companyId: company.id, webhookId: named.id, input: { is_active: false } });
    expect(await nameOf(named.id)).toBe("Company bus webhook");
    await updateWebhook(db, { companyId: company.id, webhookId: chosen.id, input: { agent_id: billing.id } });
    expect(await nameOf(chosen.id)).toBe("Shopify orders");

    // Renaming the other agent touches only its own endpoints.
    await updateAgent(db, { companyId: company.id, agentId: billing.id, input: { name: "Invoices" } });
    expect(await nameOf(named.id)).toBe("Company bus webhook");
  });
});
