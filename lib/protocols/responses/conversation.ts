import "server-only";
import { and, eq } from "drizzle-orm";
import type { Thread } from "@/db/schema";
import { threads } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { toUnix } from "@/lib/time";
import { addMessages } from "@/lib/threads/add-messages";
import type { MessageInput } from "@/lib/threads/schemas";
import { threadNotFound } from "@/lib/threads/internal";
import { toChatMessages } from "./input";
import { toItems } from "./output";
import type { InputItem } from "./schemas";

/** OpenAI's conversation object; its id is the thread's (both APIs read it). */
export function toConversation(t: Pick<Thread, "id" | "createdAt" | "metadata">) {
  return { id: t.id, object: "conversation" as const, created_at: toUnix(t.createdAt), metadata: t.metadata };
}

/** Conversation items as thread messages (system and developer items kept as messages), appended in order. */
export async function appendItems(db: DbOrTx, args: { companyId: string; threadId: string; items: InputItem[] }) {
  const { messages } = toChatMessages(args.items, { liftSystem: false });
  if (messages.length === 0) return [];
  return addMessages(db, {
    companyId: args.companyId,
    threadId: args.threadId,
    messages: messages.map(({ role, content, ...extra }) => ({
      role,
      content: (content ?? "") as MessageInput["content"],
      extra,
    })),
  });
}

/** Sets a conversation's metadata (OpenAI's update replaces it). @throws not_found. */
export async function updateConversationMetadata(
  db: DbOrTx,
  args: { companyId: string; threadId: string; metadata: Record<string, string> },
) {
  const [row] = await db
    .update(threads)
    .set({ metadata: args.metadata })
    .where(and(eq(threads.id, args.threadId), eq(threads.companyId, args.companyId)))
    .returning();
  if (!row) throw threadNotFound(args.threadId);
  return row;
}

/** Added messages as OpenAI's item list (the answer to `POST …/items`). */
export function toItemList(added: { id: string; role: string; content: unknown; extra: Record<string, unknown> }[]) {
  const data = added.flatMap(toItems);
  return {
    object: "list" as const,
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: false,
  };
}
