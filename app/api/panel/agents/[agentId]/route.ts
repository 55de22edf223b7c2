import { z } from "zod";
import { db } from "@/db/client";
import { setAgentActive, toPublicAgent } from "@/lib/agents";
import { panelRoute, readJson } from "@/lib/http";

const UpdateAgentInput = z.strictObject({ is_active: z.boolean() });

/** Pause (`is_active: false`) or resume an agent. */
export const PATCH = panelRoute<{ agentId: string }>(async ({ req, auth, params }) => {
  const input = await readJson(req, UpdateAgentInput);
  const agent = await setAgentActive(db, { companyId: auth.companyId, agentId: params.agentId, isActive: input.is_active });
  return Response.json(toPublicAgent(agent));
});
