import "server-only";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import type { PageQuery } from "@/lib/pagination";
import { getResponseRow, responseMessages } from "./internal";
import { toItems } from "./output";

/**
 * Pages items read whole (a response's input, bounded by its request): `after` is the last id seen.
 * @throws invalid_request when `after` names no item of the list.
 */
function pageItems(all: Record<string, unknown>[], query: PageQuery) {
  const ordered = query.order === "desc" ? all.toReversed() : all;
  let start = 0;
  if (query.after) {
    const at = ordered.findIndex((i) => i.id === query.after);
    if (at < 0) throw new AppError("invalid_request", "after: no item with that id in this list", { param: "after" });
    start = at + 1;
  }
  const data = ordered.slice(start, start + query.limit);
  return {
    object: "list" as const,
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: start + query.limit < ordered.length,
  };
}

/**
 * `GET /v1/responses/{id}/input_items`: the input the response stored, as Responses items.
 * @throws not_found (see getResponseRow).
 */
export async function listInputItems(db: DbOrTx, args: { companyId: string; responseId: string; query: PageQuery }) {
  const row = await getResponseRow(db, args);
  const answerId = row.request.answer_message_id;
  const input = (await responseMessages(db, row)).filter((m) => m.id !== answerId);
  return pageItems(input.flatMap(toItems), args.query);
}
