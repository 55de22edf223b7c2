import "server-only";
import { THREAD_SOURCE } from "@/db/enums";
import type { DbOrTx } from "@/db/types";
import { createThread } from "@/lib/threads/create-thread";
import { appendItems, toConversation } from "./conversation";
import type { CreateConversationInput } from "./schemas";

/** `POST /v1/conversations`: a thread (`source` conversations) with its first items, all or none. */
export async function createConversation(db: DbOrTx, args: { companyId: string; input: CreateConversationInput }) {
  const thread = await db.transaction(async (tx) => {
    const t = await createThread(tx, {
      companyId: args.companyId,
      input: { metadata: args.input.metadata ?? {} },
      source: THREAD_SOURCE.conversations,
    });
    if (args.input.items?.length)
      await appendItems(tx, { companyId: args.companyId, threadId: t.id, items: args.input.items });
    return t;
  });
  return toConversation(thread);
}
