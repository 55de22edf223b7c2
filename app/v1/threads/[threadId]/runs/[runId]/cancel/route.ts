import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { cancelRun, toPublicRun } from "@/lib/runs";

type P = { threadId: string; runId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) => {
    const { run, content } = await cancelRun(db, {
      companyId: auth.companyId,
      threadId: params.threadId,
      runId: params.runId,
    });
    return Response.json(toPublicRun(run, content));
  }),
});
