import { db } from "@/db/client";
import { toPublicAgent, UpdateAgentInput, updateAgent } from "@/lib/agents";
import { panelRoute, readJson } from "@/lib/http";

/** Edit an agent: any of `name`, `conductor_profile_id`, `topics`, `is_active` (pause / resume). */
export const PATCH = panelRoute<{ agentId: string }>(async ({ req, auth, params }) => {
  const input = await readJson(req, UpdateAgentInput);
  const agent = await updateAgent(db, { companyId: auth.companyId, agentId: params.agentId, input });
  return Response.json(toPublicAgent(agent));
});
