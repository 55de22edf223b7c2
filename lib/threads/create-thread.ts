import "server-only";
import { THREAD_SOURCE, type ThreadSource } from "@/db/enums";
import { PgTransaction } from "drizzle-orm/pg-core";
import { threads, type Thread } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId } from "@/lib/ids";
import { addMessages } from "./add-messages";
import type { CreateThreadInput } from "./schemas";

/** A new thread (`source` api unless a webhook makes it), stored with its first messages or not at all. */
export async function createThread(
  db: DbOrTx,
  args: { companyId: string; input: CreateThreadInput; source?: ThreadSource; imageDigests?: Record<string, string> },
): Promise<Thread> {
  const values = {
    id: newId("thread"),
    companyId: args.companyId,
    source: args.source ?? THREAD_SOURCE.api,
    metadata: args.input.metadata,
  };
  const messages = args.input.messages;
  if (!messages?.length) {
    const [thread] = await db.insert(threads).values(values).returning();
    return thread!;
  }
  const write = async (tx: DbOrTx) => {
    const [thread] = await tx.insert(threads).values(values).returning();
    await addMessages(tx, {
      companyId: args.companyId,
      threadId: thread!.id,
      messages,
      imageDigests: args.imageDigests,
    });
    return thread!;
  };
  // Inside the caller's transaction already (a webhook's run claim): no savepoint, two round trips fewer.
  return db instanceof PgTransaction ? write(db) : db.transaction(write);
}
