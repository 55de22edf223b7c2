import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readQuery, routes } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";
import { listRunSteps, StepListQuery, toPublicStep } from "@/lib/runs";

type P = { threadId: string; runId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) => {
    const query = readQuery(req, StepListQuery);
    const { run, page } = await listRunSteps(db, {
      companyId: auth.companyId,
      threadId: params.threadId,
      runId: params.runId,
      query,
    });
    return Response.json(toListResponse(page, (s) => toPublicStep(run, s.step, s.index)));
  }),
});
