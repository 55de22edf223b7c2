import { SCOPE } from "@/lib/auth/scopes";
import { ChatCompletionInput } from "@/lib/completions/schemas";
import { createCompletion, streamCompletion } from "@/lib/completions/create-completion";
import { apiRoute, readJson, routes } from "@/lib/http";

/** Image parts arrive inline as data: URIs, so completions take larger bodies than other routes. */
const COMPLETION_BODY_LIMIT = 32 * 1024 * 1024;

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const input = await readJson(req, ChatCompletionInput, { limitBytes: COMPLETION_BODY_LIMIT });
    if (!input.stream) return Response.json(await createCompletion(auth, input, req.signal));
    const body = await streamCompletion(auth, input, req.signal);
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        // no-transform: proxies (and Next's own compression) must not buffer the stream.
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      },
    });
  }),
});
