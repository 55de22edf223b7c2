import "server-only";
import { and, eq } from "drizzle-orm";
import { threads, type Thread } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { cursorPage, type Page } from "@/lib/pagination";
import type { ThreadListQuery } from "./schemas";

export async function listThreads(
  db: DbOrTx,
  args: { companyId: string; query: ThreadListQuery },
): Promise<Page<Thread>> {
  return cursorPage(db, {
    table: threads,
    idColumn: threads.id,
    createdColumn: threads.createdAt,
    where: and(
      eq(threads.companyId, args.companyId),
      args.query.source ? eq(threads.source, args.query.source) : undefined,
    ),
    page: args.query,
  });
}
