import "server-only";
import { sql } from "@/db/sql";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { forgetHistory } from "@/lib/threads/history-cache";
import { getThreadInCompany } from "@/lib/threads/internal";

/**
 * `DELETE /v1/conversations/{id}`: the thread with its messages and runs (the ledger keeps the bills).
 * @throws not_found; conflict while a run is active on it.
 */
export async function deleteConversation(db: DbOrTx, args: { companyId: string; threadId: string }) {
  await db.transaction(async (tx) => {
    const thread = await getThreadInCompany(tx, args);
    // The thread's row lock: a run's claim or a message add waits for this transaction.
    await tx.execute(sql`SELECT 1 FROM threads WHERE id = ${thread.id} FOR UPDATE`);
    const active = (await tx.execute(
      sql`SELECT run_id FROM active_runs WHERE thread_id = ${thread.id}`,
    )) as unknown as unknown[];
    if (active.length > 0)
      throw new AppError("conflict", `Conversation ${thread.id} has an active response; wait for it or cancel it.`, {
        wireCode: "thread_run_active",
      });
    await tx.execute(sql`DELETE FROM messages WHERE thread_id = ${thread.id} AND company_id = ${args.companyId}`);
    await tx.execute(sql`DELETE FROM runs WHERE thread_id = ${thread.id} AND company_id = ${args.companyId}`);
    await tx.execute(sql`DELETE FROM threads WHERE id = ${thread.id} AND company_id = ${args.companyId}`);
  });
  forgetHistory(args.companyId, args.threadId);
  return { id: args.threadId, object: "conversation.deleted" as const, deleted: true as const };
}
