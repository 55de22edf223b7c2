import { db } from "@/db/client";
import { panelRoute, readJson } from "@/lib/http";
import { deleteTool, toPublicTool, updateTool, UpdateToolInput } from "@/lib/tools";

type P = { toolId: string };

export const PATCH = panelRoute<P>(async ({ req, auth, params }) => {
  const input = await readJson(req, UpdateToolInput);
  const tool = await updateTool(db, { companyId: auth.companyId, toolId: params.toolId, input });
  return Response.json(toPublicTool(tool));
});

/** Soft delete: the row stays readable by id through the API, and its name is free again. */
export const DELETE = panelRoute<P>(async ({ auth, params }) => {
  const tool = await deleteTool(db, { companyId: auth.companyId, toolId: params.toolId });
  return Response.json({ id: tool.id, object: "tool", deleted: true });
});
