import { db } from "@/db/client";
import { panelRoute, readQuery } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";
import { listRunSteps, StepListQuery, toPublicStep } from "@/lib/runs";

type P = { threadId: string; runId: string };

export const GET = panelRoute<P>(async ({ req, auth, params }) => {
  const query = readQuery(req, StepListQuery);
  const { run, page } = await listRunSteps(db, {
    companyId: auth.companyId,
    threadId: params.threadId,
    runId: params.runId,
    query,
  });
  return Response.json(toListResponse(page, (s) => toPublicStep(run, s.step, s.index)));
});
