import { exchangeToken } from "@/lib/auth/exchange-token";
import { apiRoute, readJson, routes } from "@/lib/http";
import { TokenInput } from "@/lib/keys";

// Any scope may exchange (CONTRACT 5.2); `chat` is not required, so the wrapper checks none beyond auth.
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute({ scope: null }, async ({ req, auth }) => {
    const input = await readJson(req, TokenInput, { optional: true });
    return Response.json(await exchangeToken(auth, input));
  }),
});
