import "server-only";
import { eq } from "drizzle-orm";
import { models, type Model } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";

/** A catalog slug, read through `db` (not the process cache, so it sees a transaction's view). @throws not_found model_not_found */
export async function getCatalogModel(db: DbOrTx, args: { slug: string }): Promise<Model> {
  const [row] = await db.select().from(models).where(eq(models.slug, args.slug)).limit(1);
  if (!row)
    throw new AppError("not_found", `No model '${args.slug}' in the catalog`, {
      wireCode: "model_not_found",
      param: "model",
    });
  return row;
}
