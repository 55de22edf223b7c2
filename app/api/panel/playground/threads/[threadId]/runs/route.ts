import { panelRoute, readJson } from "@/lib/http";
import { answerRun, RUN_BODY_LIMIT_BYTES, RunInput } from "@/lib/runs";

type P = { threadId: string };

/**
 * The playground's POST /v1/threads/{id}/runs: same body, frames and pipeline (profiles, their
 * server-side tools, guardrails), billed to the session's company.
 */
export const POST = panelRoute<P>(async ({ req, auth, params, admitted }) => {
  const input = await readJson(req, RunInput, { limitBytes: RUN_BODY_LIMIT_BYTES });
  return answerRun({ auth, threadId: params.threadId, input, signal: req.signal, admitted }, req);
});
