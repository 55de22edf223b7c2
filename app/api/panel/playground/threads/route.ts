import { db } from "@/db/client";
import { panelRoute } from "@/lib/http";
import { createThread, CreateThreadInput, readMessagesBody, toPublicThread } from "@/lib/threads";

/** The playground's POST /v1/threads for a signed-in user: a chat's thread, with its history when it is forked. */
export const POST = panelRoute(async ({ req, auth }) => {
  const { input, imageDigests } = await readMessagesBody(req, CreateThreadInput, { optional: true });
  const thread = await createThread(db, { companyId: auth.companyId, input, imageDigests });
  return Response.json(toPublicThread(thread), { status: 201 });
});
