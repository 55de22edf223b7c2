import { publicRoute, routes } from "@/lib/http";
import { loadWidgetAsset, matchesEtag } from "@/lib/sdk/widget-asset";

/**
 * The widget script (CONTRACT 8): public (a `<script>` tag sends no key), CORS open (module scripts
 * load in CORS mode), revalidated by ETag so new builds arrive quickly and repeat loads are 304s.
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: publicRoute(async ({ req }) => {
    const asset = loadWidgetAsset();
    const headers: Record<string, string> = {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "public, max-age=300, must-revalidate",
      etag: asset.etag,
    };
    if (matchesEtag(req.headers.get("if-none-match"), asset.etag)) return new Response(null, { status: 304, headers });
    return new Response(new Uint8Array(asset.body), { headers });
  }),
});
