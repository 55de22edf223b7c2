import { db } from "@/db/client";
import { decodeParam, panelRoute, readJson } from "@/lib/http";
import { clearModelOverride, ModelOverrideInput, setModelOverride } from "@/lib/models";

type P = { slug: string };

export const PUT = panelRoute<P>(async ({ req, auth, params }) => {
  const input = await readJson(req, ModelOverrideInput);
  await setModelOverride(db, { companyId: auth.companyId, slug: decodeParam(params.slug), input });
  return Response.json({ ok: true });
});

export const DELETE = panelRoute<P>(async ({ auth, params }) => {
  await clearModelOverride(db, { companyId: auth.companyId, slug: decodeParam(params.slug) });
  return Response.json({ ok: true });
});
