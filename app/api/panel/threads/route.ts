import { db } from "@/db/client";
import { panelRoute, readQuery } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";
import { listPanelThreads, PanelThreadListQuery } from "@/lib/threads";

/** The API's thread list with a preview line per thread, and `q` to search the messages' text. */
export const GET = panelRoute(async ({ req, auth }) => {
  const page = await listPanelThreads(db, { companyId: auth.companyId, query: readQuery(req, PanelThreadListQuery) });
  return Response.json(toListResponse(page, (t) => t));
});
