import { panelRoute } from "@/lib/http";
import { listModels, toPanelModel } from "@/lib/models";

/** The catalog as this company sees it, hidden slugs included (the panel manages them). */
export const GET = panelRoute(async ({ auth }) => {
  const models = await listModels({ companyId: auth.companyId, includeHidden: true });
  return Response.json({ object: "list", data: models.map(toPanelModel) });
});
