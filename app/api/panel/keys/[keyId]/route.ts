import { db } from "@/db/client";
import { panelRoute } from "@/lib/http";
import { revokeKey, toPublicKey } from "@/lib/keys";

export const DELETE = panelRoute<{ keyId: string }>(async ({ auth, params }) => {
  const key = await revokeKey(db, { companyId: auth.companyId, keyId: params.keyId });
  return Response.json(toPublicKey(key));
});
