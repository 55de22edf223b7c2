import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { countMessageTokens } from "@/lib/protocols/anthropic/count-tokens";
import { ANTHROPIC_DIALECT } from "@/lib/protocols/anthropic/errors";
import { readMessagesBody } from "@/lib/threads";
import { CountTokensInput } from "@/lib/protocols/anthropic/schemas";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute({ scope: SCOPE.chat, dialect: ANTHROPIC_DIALECT }, async ({ req, auth }) => {
    const { input } = await readMessagesBody(req, CountTokensInput);
    return Response.json(await countMessageTokens({ companyId: auth.companyId, input }));
  }),
});
