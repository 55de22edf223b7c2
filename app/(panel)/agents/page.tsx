import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import type { AgentRow } from "@/components/agents/agent-row";
import { AgentsView } from "@/components/agents/agents-view";
import { PageHeader } from "@/components/ui/page-header";
import { listAgents, toPublicAgent } from "@/lib/agents";
import { PageQuery } from "@/lib/pagination";
import { getPanelSession } from "@/lib/panel/get-panel-session";
import { listProfiles } from "@/lib/profiles";
import { listRecentEvents, listWebhooks } from "@/lib/webhooks";

export const metadata: Metadata = { title: "Agents · Cockpit Gateway" };

export default async function AgentsPage() {
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const companyId = session.companyId;
  const [agents, hooks, profiles] = await Promise.all([
    listAgents(db, { companyId }),
    listWebhooks(db, { companyId }),
    listProfiles(db, { companyId, page: PageQuery.parse({ limit: 100, order: "asc" }) }),
  ]);
  const profileName = new Map(profiles.data.map((p) => [p.id, p.name]));
  const rows: AgentRow[] = await Promise.all(
    agents.map(async (a) => {
      const events = await listRecentEvents(db, { companyId, agentId: a.id, limit: 5 });
      return {
        ...toPublicAgent(a),
        profile_name: profileName.get(a.conductorProfileId) ?? a.conductorProfileId,
        webhooks: hooks.filter((w) => w.agentId === a.id).map((w) => ({ id: w.id, name: w.name })),
        recent_events: events.map((e) => ({
          id: e.id,
          event_topic: e.topic,
          status: e.status,
          thread_id: e.runs.find((r) => r.agentId === a.id)?.threadId ?? null,
        })),
      };
    }),
  );
  return (
    <>
      <PageHeader
        title="Agents"
        description="Profiles woken by webhooks: bound endpoints or the company bus by topic."
      />
      <AgentsView
        agents={rows}
        profiles={profiles.data.filter((p) => p.isActive && p.modelSlug).map((p) => ({ id: p.id, name: p.name }))}
      />
    </>
  );
}
