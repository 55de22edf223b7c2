import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, routes } from "@/lib/http";
import { ActionRequest, runAction } from "@/lib/sdk";

/** The caller as the services record it: the SDK key (a JWT's parent key), else the panel user. */
const actorOf = (auth: { keyId: string | null; userId: string | null }) => auth.keyId ?? auth.userId ?? "unknown";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute({ scope: SCOPE.action }, async ({ req, auth }) => {
    const request = await readJson(req, ActionRequest);
    const { response, replayed } = await runAction(db, { companyId: auth.companyId, actor: actorOf(auth), request });
    return Response.json(response, { headers: replayed ? { "idempotent-replayed": "true" } : {} });
  }),
});
