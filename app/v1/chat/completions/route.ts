import { SCOPE } from "@/lib/auth/scopes";
import { COMPLETION_BODY_LIMIT, ChatCompletionInput } from "@/lib/completions/schemas";
import { createCompletion, streamCompletion } from "@/lib/completions/create-completion";
import { apiRoute, eventStreamResponse, readJson, routes } from "@/lib/http";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const input = await readJson(req, ChatCompletionInput, { limitBytes: COMPLETION_BODY_LIMIT });
    if (!input.stream) return Response.json(await createCompletion(auth, input, req.signal));
    return eventStreamResponse(await streamCompletion(auth, input, req.signal));
  }),
});
