import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, eventStreamResponse, jsonResponse, routes } from "@/lib/http";
import { createMessage, streamMessage } from "@/lib/protocols/anthropic/create-message";
import { ANTHROPIC_DIALECT } from "@/lib/protocols/anthropic/errors";
import { readMessagesBody } from "@/lib/threads";
import { MessagesInput } from "@/lib/protocols/anthropic/schemas";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute(
    { scope: SCOPE.chat, overlapRateLimit: true, dialect: ANTHROPIC_DIALECT },
    async ({ req, auth, admitted, requestId }) => {
      const { input } = await readMessagesBody(req, MessagesInput);
      const call = { auth, input, signal: req.signal, admitted, requestId };
      if (!input.stream) return jsonResponse(req, await createMessage(call));
      return eventStreamResponse(req, await streamMessage(call));
    },
  ),
});
