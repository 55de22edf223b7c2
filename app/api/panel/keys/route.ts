import { db } from "@/db/client";
import { panelRoute, readJson, readQuery } from "@/lib/http";
import { createKey, CreateKeyInput, listKeys, toPublicKey } from "@/lib/keys";
import { PageQuery, toListResponse } from "@/lib/pagination";

export const GET = panelRoute(async ({ req, auth }) => {
  const page = await listKeys(db, { companyId: auth.companyId, page: readQuery(req, PageQuery) });
  return Response.json(toListResponse(page, toPublicKey));
});

export const POST = panelRoute(async ({ req, auth }) => {
  const input = await readJson(req, CreateKeyInput);
  const { key, secret } = await createKey(db, {
    companyId: auth.companyId,
    name: input.name,
    scopes: input.scopes,
    rateLimitPerMinute: input.rate_limit_per_minute,
    expiresAt: input.expires_at ? new Date(input.expires_at) : null,
  });
  return Response.json({ ...toPublicKey(key), key: secret }, { status: 201 });
});
