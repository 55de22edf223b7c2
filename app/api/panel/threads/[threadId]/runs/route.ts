import { db } from "@/db/client";
import { panelRoute, readQuery } from "@/lib/http";
import { PageQuery, toListResponse } from "@/lib/pagination";
import { listRuns, toPublicRun } from "@/lib/runs";

type P = { threadId: string };

export const GET = panelRoute<P>(async ({ req, auth, params }) => {
  const page = await listRuns(db, {
    companyId: auth.companyId,
    threadId: params.threadId,
    query: readQuery(req, PageQuery),
  });
  return Response.json(toListResponse(page, ({ run, content }) => toPublicRun(run, content)));
});
