import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, readQuery, routes } from "@/lib/http";
import {
  AddItemsInput,
  appendItems,
  ItemListQuery,
  listConversationItems,
  RESPONSE_BODY_LIMIT_BYTES,
  toItemList,
} from "@/lib/protocols/responses";

type P = { conversationId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) =>
    Response.json(
      await listConversationItems(db, {
        companyId: auth.companyId,
        threadId: params.conversationId,
        query: readQuery(req, ItemListQuery),
      }),
    ),
  ),
  POST: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) => {
    const { items } = await readJson(req, AddItemsInput, { limitBytes: RESPONSE_BODY_LIMIT_BYTES });
    const added = await appendItems(db, { companyId: auth.companyId, threadId: params.conversationId, items });
    return Response.json(toItemList(added), { status: 201 });
  }),
});
