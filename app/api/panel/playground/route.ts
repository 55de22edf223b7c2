import { COMPLETION_BODY_LIMIT, ChatCompletionInput } from "@/lib/completions/schemas";
import { createCompletion, streamCompletion } from "@/lib/completions/create-completion";
import { eventStreamResponse, panelRoute, readJson } from "@/lib/http";

/**
 * The panel's playground: POST /v1/chat/completions for a signed-in user, who holds no SDK key.
 * Same body, same SSE frames, same pipeline; billed to the session's company like any call.
 */
export const POST = panelRoute(async ({ req, auth, admitted }) => {
  const input = await readJson(req, ChatCompletionInput, { limitBytes: COMPLETION_BODY_LIMIT });
  const call = { auth, input, signal: req.signal, admitted };
  if (!input.stream) return Response.json(await createCompletion(call));
  return eventStreamResponse(await streamCompletion(call));
});
