import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, readQuery, routes } from "@/lib/http";
import { PageQuery, toListResponse } from "@/lib/pagination";
import { answerRun, listRuns, RUN_BODY_LIMIT_BYTES, RunInput, toPublicRun } from "@/lib/runs";

type P = { threadId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) => {
    const page = await listRuns(db, {
      companyId: auth.companyId,
      threadId: params.threadId,
      query: readQuery(req, PageQuery),
    });
    return Response.json(toListResponse(page, (r) => toPublicRun(r.run, r.content)));
  }),
  POST: apiRoute<P>({ scope: SCOPE.chat, overlapRateLimit: true }, async ({ req, auth, params, admitted }) => {
    const input = await readJson(req, RunInput, { limitBytes: RUN_BODY_LIMIT_BYTES });
    return answerRun({ auth, threadId: params.threadId, input, signal: req.signal, admitted }, req);
  }),
});
