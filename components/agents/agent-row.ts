import type { PublicAgent } from "@/lib/agents/to-public";

/** An agent as the agents page lists it: with its profile's name, its webhooks and its latest events. */
export interface AgentRow extends PublicAgent {
  profile_name: string;
  webhooks: { id: string; name: string }[];
  recent_events: { id: string; event_topic: string; status: string; thread_id: string | null }[];
}
