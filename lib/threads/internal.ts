import "server-only";
import { and, eq } from "drizzle-orm";
import { threads, type Thread } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";

export const threadNotFound = (id: string) =>
  new AppError("not_found", `No thread found with id '${id}'`, { wireCode: "thread_not_found" });

/**
 * A thread of the company, whatever its source.
 * @throws not_found when it does not exist or belongs to another company (the same answer).
 */
export async function getThreadInCompany(db: DbOrTx, args: { companyId: string; threadId: string }): Promise<Thread> {
  const [row] = await db
    .select()
    .from(threads)
    .where(and(eq(threads.id, args.threadId), eq(threads.companyId, args.companyId)))
    .limit(1);
  if (!row) throw threadNotFound(args.threadId);
  return row;
}
