import { SCOPE } from "@/lib/auth/scopes";
import { readCompletionBody } from "@/lib/completions/read-body";
import { createCompletion, streamCompletion } from "@/lib/completions/create-completion";
import { apiRoute, eventStreamResponse, jsonResponse, routes } from "@/lib/http";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute({ scope: SCOPE.chat, overlapRateLimit: true }, async ({ req, auth, admitted }) => {
    const body = await readCompletionBody(req);
    const call = { auth, ...body, signal: req.signal, admitted };
    if (!body.input.stream) return jsonResponse(req, await createCompletion(call));
    return eventStreamResponse(req, await streamCompletion(call));
  }),
});
