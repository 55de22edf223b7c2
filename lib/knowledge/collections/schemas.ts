import { z } from "zod";
import { PageQuery } from "@/lib/pagination";
import { storableText } from "@/lib/persistence/pg-text";

/** Body of POST /v1/knowledge (SPEC): `name`, `description`. */
export const CreateCollectionInput = z.strictObject({
  name: storableText(z.string().trim().min(1).max(200)),
  description: storableText(z.string().max(4000)).default(""),
});
export type CreateCollectionInput = z.infer<typeof CreateCollectionInput>;

export const CollectionListQuery = PageQuery;
