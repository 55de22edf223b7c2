import { referencePage } from "@/lib/docs/reference-page";
import { loadScalarAsset } from "@/lib/docs/scalar-asset";

/** The interactive API reference: public (no panel login), rendered by Scalar from /v1/openapi.json. */
export async function GET() {
  const page = referencePage(loadScalarAsset().version);
  return new Response(page.html, { headers: page.headers });
}
