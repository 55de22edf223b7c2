import { SCOPE } from "@/lib/auth/scopes";
import { COMPLETION_BODY_LIMIT, ChatCompletionInput } from "@/lib/completions/schemas";
import { createCompletion, streamCompletion } from "@/lib/completions/create-completion";
import { apiRoute, eventStreamResponse, readJson, routes } from "@/lib/http";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute({ scope: SCOPE.chat, overlapRateLimit: true }, async ({ req, auth, admitted }) => {
    const input = await readJson(req, ChatCompletionInput, { limitBytes: COMPLETION_BODY_LIMIT });
    const call = { auth, input, signal: req.signal, admitted };
    if (!input.stream) return Response.json(await createCompletion(call));
    return eventStreamResponse(await streamCompletion(call));
  }),
});
