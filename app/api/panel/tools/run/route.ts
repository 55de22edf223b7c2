import { panelRoute, readJson } from "@/lib/http";
import { tryTool, TryToolInput } from "@/lib/tools";

/** "Run with these arguments": the editor's draft, in the company's sandbox; a tool failure is a 200 with `ok: false`. */
export const POST = panelRoute(async ({ req, auth }) => {
  const input = await readJson(req, TryToolInput);
  return Response.json(await tryTool({ companyId: auth.companyId, input }));
});
