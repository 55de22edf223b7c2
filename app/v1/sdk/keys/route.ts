import { db } from "@/db/client";
import { requireKeyCredential } from "@/lib/auth/require-key-credential";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, readQuery, routes } from "@/lib/http";
import { createChildKey, CreateKeyInput, listKeys, toPublicKey } from "@/lib/keys";
import { PageQuery, toListResponse } from "@/lib/pagination";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute({ scope: SCOPE.admin }, async ({ req, auth }) => {
    // A token is refused before its body is read, like a missing scope.
    const creatorKeyId = requireKeyCredential(auth);
    const input = await readJson(req, CreateKeyInput);
    const { key, secret } = await createChildKey(db, {
      companyId: auth.companyId,
      creatorKeyId,
      name: input.name,
      scopes: input.scopes,
      rateLimitPerMinute: input.rate_limit_per_minute,
      expiresAt: input.expires_at ? new Date(input.expires_at) : null,
    });
    return Response.json({ ...toPublicKey(key), key: secret }, { status: 201 });
  }),
  GET: apiRoute({ scope: SCOPE.admin }, async ({ req, auth }) => {
    const page = await listKeys(db, { companyId: auth.companyId, page: readQuery(req, PageQuery) });
    return Response.json(toListResponse(page, toPublicKey));
  }),
});
