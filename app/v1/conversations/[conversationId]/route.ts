import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, routes } from "@/lib/http";
import {
  deleteConversation,
  toConversation,
  updateConversationMetadata,
  UpdateConversationInput,
} from "@/lib/protocols/responses";
import { getThreadInCompany } from "@/lib/threads";

type P = { conversationId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(
      toConversation(await getThreadInCompany(db, { companyId: auth.companyId, threadId: params.conversationId })),
    ),
  ),
  POST: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) => {
    const { metadata } = await readJson(req, UpdateConversationInput);
    const thread = await updateConversationMetadata(db, {
      companyId: auth.companyId,
      threadId: params.conversationId,
      metadata,
    });
    return Response.json(toConversation(thread));
  }),
  DELETE: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(await deleteConversation(db, { companyId: auth.companyId, threadId: params.conversationId })),
  ),
});
