import "server-only";
import { and, asc, desc, eq, type SQL } from "drizzle-orm";
import { sql } from "@/db/sql";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { z } from "zod";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { storableText } from "@/lib/persistence/pg-text";

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: storableText(z.string().min(1).max(200)).optional(),
  order: z.enum(["asc", "desc"]).default("desc"),
});
export type PageQuery = z.infer<typeof PageQuery>;

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

/**
 * Keyset pagination on (created_at, id), stable while rows are inserted. `after` is the last id
 * seen and must match the same `where` (company scope included).
 */
export async function cursorPage<T extends PgTable>(
  db: DbOrTx,
  args: { table: T; idColumn: PgColumn; createdColumn: PgColumn; where: SQL | undefined; page: PageQuery },
): Promise<Page<T["$inferSelect"]>> {
  const { table, idColumn, createdColumn, where, page } = args;
  let keyset: SQL | undefined;
  if (page.after) {
    const [cursor] = await db
      // As text: a JS Date would drop PostgreSQL's microseconds and skip or repeat rows.
      .select({ created: sql<string>`${createdColumn}::text` })
      .from(table as PgTable)
      .where(and(where, eq(idColumn, page.after)))
      .limit(1);
    if (!cursor) throw new AppError("invalid_request", "after: no item with that id in this list", { param: "after" });
    keyset =
      page.order === "desc"
        ? sql`(${createdColumn}, ${idColumn}) < (${cursor.created}::timestamptz, ${page.after})`
        : sql`(${createdColumn}, ${idColumn}) > (${cursor.created}::timestamptz, ${page.after})`;
  }
  const dir = page.order === "desc" ? desc : asc;
  const rows = (await db
    .select()
    .from(table as PgTable)
    .where(and(where, keyset))
    .orderBy(dir(createdColumn), dir(idColumn))
    .limit(page.limit + 1)) as T["$inferSelect"][];
  return { data: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

export function toListResponse<T, U extends { id: string }, E extends Record<string, unknown> = Record<never, never>>(
  page: Page<T>,
  map: (row: T) => U,
  extra: E = {} as E,
) {
  const data = page.data.map(map);
  return {
    object: "list" as const,
    ...extra,
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: page.hasMore,
  };
}
