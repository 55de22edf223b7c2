import { db } from "@/db/client";
import { panelRoute } from "@/lib/http";
import { addMessages, MessageInput, readMessagesBody, toPublicMessage } from "@/lib/threads";

type P = { threadId: string };

/** The playground's POST /v1/threads/{id}/messages: the next user message of a chat. */
export const POST = panelRoute<P>(async ({ req, auth, params }) => {
  const { input, imageDigests } = await readMessagesBody(req, MessageInput);
  const [message] = await addMessages(db, {
    companyId: auth.companyId,
    threadId: params.threadId,
    messages: [input],
    imageDigests,
  });
  return Response.json(toPublicMessage(message!), { status: 201 });
});
