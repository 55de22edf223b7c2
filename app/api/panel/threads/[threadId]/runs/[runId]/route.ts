import { db } from "@/db/client";
import { panelRoute } from "@/lib/http";
import { getRun, toPublicRun } from "@/lib/runs";

type P = { threadId: string; runId: string };

export const GET = panelRoute<P>(async ({ auth, params }) => {
  const { run, content } = await getRun(db, {
    companyId: auth.companyId,
    threadId: params.threadId,
    runId: params.runId,
  });
  return Response.json(toPublicRun(run, content));
});
