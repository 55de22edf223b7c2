import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import { PageHeader } from "@/components/ui/page-header";
import { WebhooksView } from "@/components/webhooks/webhooks-view";
import { listAgents, toPublicAgent } from "@/lib/agents";
import { getPanelSession } from "@/lib/panel/get-panel-session";
import { listRecentEvents, listWebhooks, toPublicEvent, toPublicWebhook } from "@/lib/webhooks";

export const metadata: Metadata = { title: "Webhooks · Cockpit Gateway" };

export default async function WebhooksPage() {
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const companyId = session.companyId;
  const [hooks, agents, events] = await Promise.all([
    listWebhooks(db, { companyId }),
    listAgents(db, { companyId }),
    listRecentEvents(db, { companyId, limit: 50 }),
  ]);
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Inbound endpoints that wake your agents, and the events they received."
      />
      <WebhooksView
        webhooks={hooks.map(toPublicWebhook)}
        agents={agents.map(toPublicAgent)}
        events={events.map(toPublicEvent)}
      />
    </>
  );
}
