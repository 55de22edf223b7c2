import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { getKeyInCompany } from "@/lib/keys/internal";
import { revokeKey, toPublicKey } from "@/lib/keys";

type P = { keyId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.admin }, async ({ auth, params }) =>
    Response.json(toPublicKey(await getKeyInCompany(db, { companyId: auth.companyId, keyId: params.keyId }))),
  ),
  DELETE: apiRoute<P>({ scope: SCOPE.admin }, async ({ auth, params }) => {
    const key = await revokeKey(db, { companyId: auth.companyId, keyId: params.keyId });
    return Response.json({ id: key.id, object: "sdk.key", deleted: true });
  }),
});
