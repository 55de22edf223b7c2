import "server-only";
import type { DbOrTx } from "@/db/types";
import type { Page } from "@/lib/pagination";
import { findThreadPreviews } from "./find-thread-previews";
import { listThreads } from "./list-threads";
import type { PanelThreadListQuery } from "./schemas";
import { toPanelThread } from "./to-public";

type PanelThread = ReturnType<typeof toPanelThread>;

/** The panel's thread list: a page of `listThreads` with each thread's preview line. */
export async function listPanelThreads(
  db: DbOrTx,
  args: { companyId: string; query: PanelThreadListQuery },
): Promise<Page<PanelThread>> {
  const page = await listThreads(db, args);
  const previews = await findThreadPreviews(db, {
    companyId: args.companyId,
    threadIds: page.data.map((t) => t.id),
    q: args.query.q,
  });
  return { ...page, data: page.data.map((t) => toPanelThread(t, previews.get(t.id))) };
}
