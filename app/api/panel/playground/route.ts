import { readCompletionBody } from "@/lib/completions/read-body";
import { createCompletion, streamCompletion } from "@/lib/completions/create-completion";
import { eventStreamResponse, panelRoute } from "@/lib/http";

/**
 * The playground: POST /v1/chat/completions for a signed-in user without an SDK key; same body,
 * frames and pipeline, billed to the session's company.
 */
export const POST = panelRoute(async ({ req, auth, admitted }) => {
  const body = await readCompletionBody(req);
  const call = { auth, ...body, signal: req.signal, admitted };
  if (!body.input.stream) return Response.json(await createCompletion(call));
  return eventStreamResponse(await streamCompletion(call));
});
