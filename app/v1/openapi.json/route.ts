import { publicRoute, routes } from "@/lib/http";
import { getOpenApiDocument } from "@/lib/openapi";
import { matchesEtag } from "@/lib/sdk/widget-asset";

/** The OpenAPI 3.1 document of /v1 (CONTRACT 9): public, CORS open, revalidated by ETag. */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: publicRoute(async ({ req }) => {
    const doc = getOpenApiDocument();
    const headers = {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "public, max-age=300, must-revalidate",
      etag: doc.etag,
    };
    if (matchesEtag(req.headers.get("if-none-match"), doc.etag)) return new Response(null, { status: 304, headers });
    return new Response(doc.body, { headers });
  }),
});
