import { panelRoute } from "@/lib/http";
import { AppError } from "@/lib/errors";

type P = { collectionId: string };

/**
 * The panel's "test retrieval" box. Retrieval (lib/knowledge/search, issue 13) is built in
 * parallel: until it lands this answers 503.
 * TODO(#13): call `search` from lib/knowledge/search (the ranking POST /v1/knowledge/{id}/search uses).
 */
export const POST = panelRoute<P>(async () => {
  throw new AppError("unavailable", "Retrieval is not available yet on this server", { wireCode: "search_unavailable" });
});
