import { readCompletionBody } from "@/lib/completions/read-body";
import { createCompletion, streamCompletion } from "@/lib/completions/create-completion";
import { eventStreamResponse, panelRoute } from "@/lib/http";

/**
 * The panel's playground: POST /v1/chat/completions for a signed-in user, who holds no SDK key.
 * Same body, same SSE frames, same pipeline; billed to the session's company like any call.
 */
export const POST = panelRoute(async ({ req, auth, admitted }) => {
  const body = await readCompletionBody(req);
  const call = { auth, ...body, signal: req.signal, admitted };
  if (!body.input.stream) return Response.json(await createCompletion(call));
  return eventStreamResponse(await streamCompletion(call));
});
