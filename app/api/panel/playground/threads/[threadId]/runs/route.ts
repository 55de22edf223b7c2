import { eventStreamResponse, panelRoute, readJson } from "@/lib/http";
import { createRun, RUN_BODY_LIMIT_BYTES, RunInput, streamRun } from "@/lib/runs";

type P = { threadId: string };

/**
 * The playground's POST /v1/threads/{id}/runs: same body, frames and pipeline (profiles, their
 * server-side tools, guardrails), billed to the session's company.
 */
export const POST = panelRoute<P>(async ({ req, auth, params, admitted }) => {
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
});
