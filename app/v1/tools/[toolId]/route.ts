import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, routes } from "@/lib/http";
import { deleteTool, getToolInCompany, toPublicTool, updateTool, UpdateToolInput } from "@/lib/tools";

type P = { toolId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(toPublicTool(await getToolInCompany(db, { companyId: auth.companyId, toolId: params.toolId }))),
  ),
  PATCH: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) => {
    const input = await readJson(req, UpdateToolInput);
    const tool = await updateTool(db, { companyId: auth.companyId, toolId: params.toolId, input });
    return Response.json(toPublicTool(tool));
  }),
  DELETE: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) => {
    const tool = await deleteTool(db, { companyId: auth.companyId, toolId: params.toolId });
    return Response.json({ id: tool.id, object: "tool", deleted: true });
  }),
});
