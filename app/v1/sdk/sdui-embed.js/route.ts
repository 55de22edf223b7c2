import { publicRoute, routes } from "@/lib/http";
import { pickContentCoding } from "@/lib/http/accept-encoding";
import { keepsContentEncoding } from "@/lib/http/keeps-content-encoding";
import { loadWidgetAsset, matchesEtag, widgetVariant } from "@/lib/sdk/widget-asset";

/**
 * The widget script (CONTRACT 8): public (a `<script>` tag sends no key), CORS open (module scripts
 * load in CORS mode), revalidated by ETag so new builds arrive quickly and repeat loads are 304s.
 * Brotli or gzip as the client accepts, when the server keeps the Content-Encoding (the fast lane).
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: publicRoute(async ({ req }) => {
    const coding = keepsContentEncoding(req) ? pickContentCoding(req.headers.get("accept-encoding")) : "identity";
    const variant = widgetVariant(loadWidgetAsset(), coding);
    const headers: Record<string, string> = {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "public, max-age=300, must-revalidate",
      etag: variant.etag,
      vary: "Accept-Encoding",
    };
    if (matchesEtag(req.headers.get("if-none-match"), variant.etag))
      return new Response(null, { status: 304, headers });
    if (coding !== "identity") headers["content-encoding"] = coding;
    return new Response(new Uint8Array(variant.body), { headers });
  }),
});
