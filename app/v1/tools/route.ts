import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, readQuery, routes } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";
import { createTool, CreateToolInput, listTools, ToolListQuery, toPublicTool } from "@/lib/tools";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const page = await listTools(db, { companyId: auth.companyId, page: readQuery(req, ToolListQuery) });
    return Response.json(toListResponse(page, toPublicTool));
  }),
  POST: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const input = await readJson(req, CreateToolInput);
    const { tool, created } = await createTool(db, { companyId: auth.companyId, input });
    // CONTRACT 4: the POST that finds the active tool of that name answers 200 with it.
    return Response.json(toPublicTool(tool), { status: created ? 201 : 200 });
  }),
});
