import { db } from "@/db/client";
import { panelRoute, readJson, readQuery } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";
import { createProfile, CreateProfileInput, listProfiles, ProfileListQuery, toPublicProfile } from "@/lib/profiles";

/** Always the full objects: the panel edits the system prompt in place. */
export const GET = panelRoute(async ({ req, auth }) => {
  const page = await listProfiles(db, { companyId: auth.companyId, page: readQuery(req, ProfileListQuery) });
  return Response.json(toListResponse(page, toPublicProfile));
});

export const POST = panelRoute(async ({ req, auth }) => {
  const input = await readJson(req, CreateProfileInput);
  const profile = await createProfile(db, { companyId: auth.companyId, input });
  return Response.json(toPublicProfile(profile), { status: 201 });
});
