import { z } from "zod";

/** Body of POST /v1/knowledge/{collection_id}/search (CONTRACT 5.10). */
export const SearchCollectionInput = z.strictObject({
  query: z.string().trim().min(1).max(8_000),
  top_k: z.number().int().min(1).max(50).default(10),
});
export type SearchCollectionInput = z.infer<typeof SearchCollectionInput>;
