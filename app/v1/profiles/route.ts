import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, readQuery, routes } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";
import {
  createProfile,
  CreateProfileInput,
  listProfiles,
  ProfileListQuery,
  toPublicProfile,
  toPublicProfileSummary,
} from "@/lib/profiles";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const query = readQuery(req, ProfileListQuery);
    const page = await listProfiles(db, { companyId: auth.companyId, page: query });
    return Response.json(toListResponse(page, query.full ? toPublicProfile : toPublicProfileSummary));
  }),
  POST: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const input = await readJson(req, CreateProfileInput);
    const profile = await createProfile(db, { companyId: auth.companyId, input });
    return Response.json(toPublicProfile(profile), { status: 201 });
  }),
});
