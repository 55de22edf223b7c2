import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";
import { addMessages, BulkMessagesInput, readMessagesBody, toPublicMessage } from "@/lib/threads";

type P = { threadId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  /** CONTRACT 5.1: 1 to 100 messages, stored in order, all or none → 201 with the stored list. */
  POST: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) => {
    const { input, imageDigests } = await readMessagesBody(req, BulkMessagesInput);
    const stored = await addMessages(db, {
      companyId: auth.companyId,
      threadId: params.threadId,
      messages: input.messages,
      imageDigests,
    });
    return Response.json(toListResponse({ data: stored, hasMore: false }, toPublicMessage), { status: 201 });
  }),
});
