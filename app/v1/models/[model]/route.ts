import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, decodeParam, routes } from "@/lib/http";
import { resolveVisibleModel, toPublicModel } from "@/lib/models";
import { ANTHROPIC_DIALECT_IF_VERSIONED, wantsAnthropic } from "@/lib/protocols/anthropic/errors";
import { toAnthropicModel } from "@/lib/protocols/anthropic/to-model";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<{ model: string }>(
    { scope: SCOPE.chat, dialect: ANTHROPIC_DIALECT_IF_VERSIONED },
    async ({ req, auth, params }) => {
      const model = await resolveVisibleModel({ companyId: auth.companyId, slug: decodeParam(params.model) });
      return Response.json(wantsAnthropic(req) ? toAnthropicModel(model) : toPublicModel(model));
    },
  ),
});
