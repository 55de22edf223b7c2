import "server-only";
import { knowledgeCollections } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId } from "@/lib/ids";
import type { CollectionWithCount } from "./internal";
import type { CreateCollectionInput } from "./schemas";

export async function createCollection(
  db: DbOrTx,
  args: { companyId: string; input: CreateCollectionInput },
): Promise<CollectionWithCount> {
  const [row] = await db
    .insert(knowledgeCollections)
    .values({
      id: newId("knowledgeCollection"),
      companyId: args.companyId,
      name: args.input.name,
      description: args.input.description,
    })
    .returning();
  return { ...row!, documentCount: 0 };
}
