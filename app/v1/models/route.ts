import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { listModels, toPublicModel } from "@/lib/models";
import { ANTHROPIC_DIALECT_IF_VERSIONED, wantsAnthropic } from "@/lib/protocols/anthropic/errors";
import { toAnthropicModelList } from "@/lib/protocols/anthropic/to-model";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute({ scope: SCOPE.chat, dialect: ANTHROPIC_DIALECT_IF_VERSIONED }, async ({ req, auth }) => {
    const models = await listModels({ companyId: auth.companyId });
    if (wantsAnthropic(req)) return Response.json(toAnthropicModelList(models, new URL(req.url).searchParams));
    return Response.json({ object: "list", data: models.map(toPublicModel) });
  }),
});
