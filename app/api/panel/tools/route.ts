import { db } from "@/db/client";
import { panelRoute, readJson, readQuery } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";
import { createTool, CreateToolInput, listTools, ToolListQuery, toPublicTool } from "@/lib/tools";

export const GET = panelRoute(async ({ req, auth }) => {
  const page = await listTools(db, { companyId: auth.companyId, page: readQuery(req, ToolListQuery) });
  return Response.json(toListResponse(page, toPublicTool));
});

/** As the API: 201 when created, 200 with the existing active tool of that name (unchanged). */
export const POST = panelRoute(async ({ req, auth }) => {
  const input = await readJson(req, CreateToolInput);
  const { tool, created } = await createTool(db, { companyId: auth.companyId, input });
  return Response.json(toPublicTool(tool), { status: created ? 201 : 200 });
});
