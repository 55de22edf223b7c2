import { db } from "@/db/client";
import { panelRoute, readQuery } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";
import { listThreads, ThreadListQuery, toPublicThread } from "@/lib/threads";

export const GET = panelRoute(async ({ req, auth }) => {
  const page = await listThreads(db, { companyId: auth.companyId, query: readQuery(req, ThreadListQuery) });
  return Response.json(toListResponse(page, toPublicThread));
});
