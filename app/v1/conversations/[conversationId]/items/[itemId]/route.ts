import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { deleteConversationItem, getConversationItem } from "@/lib/protocols/responses";

type P = { conversationId: string; itemId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(
      await getConversationItem(db, {
        companyId: auth.companyId,
        threadId: params.conversationId,
        itemId: params.itemId,
      }),
    ),
  ),
  DELETE: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(
      await deleteConversationItem(db, {
        companyId: auth.companyId,
        threadId: params.conversationId,
        itemId: params.itemId,
      }),
    ),
  ),
});
