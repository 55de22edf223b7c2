import { db } from "@/db/client";
import { panelRoute, readQuery } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";
import { listMessages, MessageListQuery, toPublicMessage } from "@/lib/threads";

type P = { threadId: string };

export const GET = panelRoute<P>(async ({ req, auth, params }) => {
  const page = await listMessages(db, {
    companyId: auth.companyId,
    threadId: params.threadId,
    query: readQuery(req, MessageListQuery),
  });
  return Response.json(toListResponse(page, toPublicMessage));
});
