import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { CreateProfileInput, ProfileListQuery, UpdateProfileInput } from "@/lib/profiles/schemas";
import type { toPublicProfile } from "@/lib/profiles/to-public-profile";
import { deletedOf, describes, json, listOf, operation, pathParams, rateLimited, unixTime } from "../common/components";

/** Profiles: system prompt, model, knowledge and tools composed into runs (SPEC, CONTRACT 5.6). */
export function registerProfilePaths(r: OpenAPIRegistry) {
  const tags = ["Profiles"];
  const Profile = r.register(
    "Profile",
    describes<ReturnType<typeof toPublicProfile>>()(
      z.object({
        id: z.uuid(),
        object: z.literal("profile"),
        name: z.string(),
        system_prompt: z.string(),
        model_slug: z.string().nullable(),
        knowledge_base_ids: z.array(z.string()),
        allowed_tool_names: z.array(z.string()),
        use_kb: z.boolean(),
        use_tools: z.boolean(),
        is_default: z.boolean(),
        is_active: z.boolean(),
        created_at: unixTime(),
        updated_at: unixTime(),
      }),
    ),
  );
  const ProfileSummary = r.register(
    "ProfileSummary",
    Profile.omit({ system_prompt: true, knowledge_base_ids: true, allowed_tool_names: true }),
  );
  const profile = pathParams("profileId");

  operation(r, {
    method: "get",
    path: "/v1/profiles",
    operationId: "listProfiles",
    summary: "List profiles",
    description: "Without `full=true` the items omit `system_prompt`, `knowledge_base_ids` and `allowed_tool_names`.",
    tags,
    scope: "chat",
    request: { query: ProfileListQuery },
    ok: { 200: json("The profiles", listOf(z.union([ProfileSummary, Profile])), rateLimited) },
    errors: [400],
  });
  operation(r, {
    method: "post",
    path: "/v1/profiles",
    operationId: "createProfile",
    summary: "Create profile",
    tags,
    scope: "chat",
    request: { body: { content: { "application/json": { schema: CreateProfileInput } } } },
    ok: { 201: json("The new profile", Profile, rateLimited) },
    errors: [400, 404],
  });
  operation(r, {
    method: "get",
    path: "/v1/profiles/{profileId}",
    operationId: "getProfile",
    summary: "Retrieve profile",
    tags,
    scope: "chat",
    request: { params: profile },
    ok: { 200: json("The profile", Profile, rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "patch",
    path: "/v1/profiles/{profileId}",
    operationId: "updateProfile",
    summary: "Update profile",
    tags,
    scope: "chat",
    request: { params: profile, body: { content: { "application/json": { schema: UpdateProfileInput } } } },
    ok: { 200: json("The updated profile", Profile, rateLimited) },
    errors: [400, 404],
  });
  operation(r, {
    method: "delete",
    path: "/v1/profiles/{profileId}",
    operationId: "deleteProfile",
    summary: "Delete profile",
    tags,
    scope: "chat",
    request: { params: profile },
    ok: { 200: json("Deleted (soft)", deletedOf("profile"), rateLimited) },
    errors: [404],
  });
}
