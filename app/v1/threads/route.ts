import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readQuery, routes } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";
import {
  createThread,
  CreateThreadInput,
  listThreads,
  readMessagesBody,
  ThreadListQuery,
  toPublicThread,
} from "@/lib/threads";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const page = await listThreads(db, { companyId: auth.companyId, query: readQuery(req, ThreadListQuery) });
    return Response.json(toListResponse(page, toPublicThread));
  }),
  POST: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const { input, imageDigests } = await readMessagesBody(req, CreateThreadInput, { optional: true });
    const thread = await createThread(db, { companyId: auth.companyId, input, imageDigests });
    return Response.json(toPublicThread(thread), { status: 201 });
  }),
});
