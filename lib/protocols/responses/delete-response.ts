import "server-only";
import { sql } from "@/db/sql";
import type { DbOrTx } from "@/db/types";
import { forgetHistory } from "@/lib/threads/history-cache";
import { getResponseRow } from "./internal";

/**
 * `DELETE /v1/responses/{id}`: the response's run and the messages it stored (its input and
 * answer). A response that continued it keeps its own messages; its chain now stops here.
 * @throws not_found (see getResponseRow).
 */
export async function deleteResponse(db: DbOrTx, args: { companyId: string; responseId: string }) {
  const row = await db.transaction(async (tx) => {
    const found = await getResponseRow(tx, args);
    await tx.execute(sql`DELETE FROM messages WHERE thread_id = ${found.thread_id} AND run_id = ${found.id}`);
    await tx.execute(sql`DELETE FROM runs WHERE id = ${found.id} AND company_id = ${args.companyId}`);
    return found;
  });
  forgetHistory(args.companyId, row.thread_id);
  return { id: row.id, object: "response" as const, deleted: true as const };
}
