import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, routes } from "@/lib/http";
import { deleteProfile, getProfileInCompany, toPublicProfile, updateProfile, UpdateProfileInput } from "@/lib/profiles";

type P = { profileId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(
      toPublicProfile(await getProfileInCompany(db, { companyId: auth.companyId, profileId: params.profileId })),
    ),
  ),
  PATCH: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) => {
    const input = await readJson(req, UpdateProfileInput);
    const profile = await updateProfile(db, { companyId: auth.companyId, profileId: params.profileId, input });
    return Response.json(toPublicProfile(profile));
  }),
  DELETE: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) => {
    const profile = await deleteProfile(db, { companyId: auth.companyId, profileId: params.profileId });
    return Response.json({ id: profile.id, object: "profile", deleted: true });
  }),
});
