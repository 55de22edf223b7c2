import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, routes } from "@/lib/http";
import { createConversation, CreateConversationInput, RESPONSE_BODY_LIMIT_BYTES } from "@/lib/protocols/responses";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const input = await readJson(req, CreateConversationInput, {
      limitBytes: RESPONSE_BODY_LIMIT_BYTES,
      optional: true,
    });
    return Response.json(await createConversation(db, { companyId: auth.companyId, input }), { status: 201 });
  }),
});
