import { loadScalarAsset } from "@/lib/docs/scalar-asset";

/** Scalar's bundle from node_modules; the page names its hash (`?v=`), so it is cached for a year. */
export async function GET(req: Request) {
  const asset = loadScalarAsset();
  const headers = {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": "public, max-age=31536000, immutable",
    etag: `"${asset.version}"`,
    "x-content-type-options": "nosniff",
  };
  if (req.headers.get("if-none-match") === headers.etag) return new Response(null, { status: 304, headers });
  return new Response(new Uint8Array(asset.body), { headers });
}
