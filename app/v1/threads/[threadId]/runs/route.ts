import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, eventStreamResponse, readJson, readQuery, routes } from "@/lib/http";
import { PageQuery, toListResponse } from "@/lib/pagination";
import { createRun, listRuns, RUN_BODY_LIMIT_BYTES, RunInput, streamRun, toPublicRun } from "@/lib/runs";

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
    const call = { auth, threadId: params.threadId, input, signal: req.signal, admitted };
    if (!input.stream) {
      const run = await createRun(call);
      return Response.json(run, { headers: { "x-run-id": run.id } });
    }
    const { body, runId } = await streamRun(call);
    const res = eventStreamResponse(body);
    res.headers.set("x-run-id", runId);
    return res;
  }),
});
