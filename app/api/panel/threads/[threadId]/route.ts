import { db } from "@/db/client";
import { panelRoute } from "@/lib/http";
import { getThreadInCompany, toPublicThread } from "@/lib/threads";

type P = { threadId: string };

/** The panel's search by exact thread id. */
export const GET = panelRoute<P>(async ({ auth, params }) =>
  Response.json(toPublicThread(await getThreadInCompany(db, { companyId: auth.companyId, threadId: params.threadId }))),
);
