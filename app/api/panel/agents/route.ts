import { db } from "@/db/client";
import { createAgent, CreateAgentInput, listAgents, toPublicAgent } from "@/lib/agents";
import { panelRoute, readJson } from "@/lib/http";

export const GET = panelRoute(async ({ auth }) => {
  const rows = await listAgents(db, { companyId: auth.companyId });
  return Response.json({ object: "list", data: rows.map(toPublicAgent) });
});

export const POST = panelRoute(async ({ req, auth }) => {
  const input = await readJson(req, CreateAgentInput);
  const agent = await createAgent(db, { companyId: auth.companyId, input });
  return Response.json(toPublicAgent(agent), { status: 201 });
});
