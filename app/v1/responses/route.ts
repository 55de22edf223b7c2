import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, routes } from "@/lib/http";
import { answerResponse, CreateResponseInput, RESPONSE_BODY_LIMIT_BYTES } from "@/lib/protocols/responses";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute({ scope: SCOPE.chat, overlapRateLimit: true }, async ({ req, auth, admitted }) => {
    const input = await readJson(req, CreateResponseInput, { limitBytes: RESPONSE_BODY_LIMIT_BYTES });
    return answerResponse({ auth, input, signal: req.signal, admitted }, req);
  }),
});
