import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { getThreadInCompany, toPublicThread } from "@/lib/threads";

type P = { threadId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(
      toPublicThread(await getThreadInCompany(db, { companyId: auth.companyId, threadId: params.threadId })),
    ),
  ),
});
