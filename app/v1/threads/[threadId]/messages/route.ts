import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readQuery, routes } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";
import {
  addMessages,
  listMessages,
  MessageInput,
  MessageListQuery,
  readMessagesBody,
  toPublicMessage,
} from "@/lib/threads";

type P = { threadId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) => {
    const query = readQuery(req, MessageListQuery);
    const page = await listMessages(db, { companyId: auth.companyId, threadId: params.threadId, query });
    return Response.json(toListResponse(page, toPublicMessage));
  }),
  POST: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) => {
    const { input, imageDigests } = await readMessagesBody(req, MessageInput);
    const [message] = await addMessages(db, {
      companyId: auth.companyId,
      threadId: params.threadId,
      messages: [input],
      imageDigests,
    });
    return Response.json(toPublicMessage(message!), { status: 201 });
  }),
});
