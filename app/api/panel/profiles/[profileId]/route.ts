import { db } from "@/db/client";
import { panelRoute, readJson } from "@/lib/http";
import { deleteProfile, toPublicProfile, updateProfile, UpdateProfileInput } from "@/lib/profiles";

type P = { profileId: string };

export const PATCH = panelRoute<P>(async ({ req, auth, params }) => {
  const input = await readJson(req, UpdateProfileInput);
  const profile = await updateProfile(db, { companyId: auth.companyId, profileId: params.profileId, input });
  return Response.json(toPublicProfile(profile));
});

/** Soft delete: the row stays readable by id through the API. */
export const DELETE = panelRoute<P>(async ({ auth, params }) => {
  const profile = await deleteProfile(db, { companyId: auth.companyId, profileId: params.profileId });
  return Response.json({ id: profile.id, object: "profile", deleted: true });
});
