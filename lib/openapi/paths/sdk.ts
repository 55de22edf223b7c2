import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { SCOPES } from "@/db/enums";
import { CreateKeyInput, TokenInput } from "@/lib/keys/schemas";
import type { toPublicKey } from "@/lib/keys/to-public-key";
import { PageQuery } from "@/lib/pagination";
import { ActionRequest, SduiQuery } from "@/lib/sdk/schemas";
import { deletedOf, describes, json, listOf, operation, pathParams, rateLimited, unixTime } from "../common/components";

const PublicAction = z.object({
  name: z.string(),
  title: z.string(),
  input_schema: z.record(z.string(), z.unknown()).meta({ description: "JSON Schema of the action's `input`" }),
});

/** SDK keys and tokens, server-driven views and actions, and the widget script (CONTRACT 5.2–5.5, 8). */
export function registerSdkPaths(r: OpenAPIRegistry) {
  const tags = ["SDK"];
  const keyTags = ["Keys"];
  const Key = r.register(
    "SdkKey",
    describes<ReturnType<typeof toPublicKey>>()(
      z.object({
        id: z.string().meta({ example: "key_…" }),
        object: z.literal("sdk.key"),
        name: z.string(),
        prefix: z.string(),
        scopes: z.array(z.enum(SCOPES)),
        rate_limit_per_minute: z.number().int(),
        status: z.enum(["active", "revoked", "expired"]),
        created_at: unixTime(),
        expires_at: unixTime().nullable(),
        last_used_at: unixTime().nullable(),
        revoked_at: unixTime().nullable(),
      }),
    ),
  );
  const CreatedKey = r.register(
    "SdkKeyWithSecret",
    Key.extend({ key: z.string().meta({ description: "The secret (`sk-cp-…`), shown in this response only" }) }),
  );
  const Token = r.register(
    "SdkToken",
    z.object({
      token: z.string(),
      token_type: z.literal("Bearer"),
      expires_in: z.number().int().meta({ description: "Seconds" }),
      expires_at: unixTime(),
      scopes: z.array(z.enum(SCOPES)),
      company_id: z.string(),
    }),
  );
  const key = pathParams("keyId");

  operation(r, {
    method: "post",
    path: "/v1/sdk/token",
    operationId: "createSdkToken",
    summary: "Exchange a key for a token",
    description:
      "Bearer = a long-lived SDK key (a token cannot be exchanged: 401). The short-lived JWT acts with the key's company and scopes, optionally narrowed.",
    tags: keyTags,
    scope: null,
    request: { body: { required: false, content: { "application/json": { schema: TokenInput } } } },
    ok: { 200: json("The token", Token, rateLimited) },
    errors: [400],
  });
  operation(r, {
    method: "get",
    path: "/v1/sdk/keys",
    operationId: "listSdkKeys",
    summary: "List SDK keys",
    tags: keyTags,
    scope: "admin",
    request: { query: PageQuery },
    ok: { 200: json("The company's keys, without secrets", listOf(Key), rateLimited) },
    errors: [400],
  });
  operation(r, {
    method: "post",
    path: "/v1/sdk/keys",
    operationId: "createSdkKey",
    summary: "Create SDK key",
    description:
      "Needs a long-lived key (a token gets 403). The new key never exceeds its creator: scopes, rate limit and expiry.",
    tags: keyTags,
    scope: "admin",
    request: { body: { content: { "application/json": { schema: CreateKeyInput } } } },
    ok: { 201: json("The new key with its secret", CreatedKey, rateLimited) },
    errors: [400],
  });
  operation(r, {
    method: "get",
    path: "/v1/sdk/keys/{keyId}",
    operationId: "getSdkKey",
    summary: "Retrieve SDK key",
    tags: keyTags,
    scope: "admin",
    request: { params: key },
    ok: { 200: json("The key, without its secret", Key, rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "delete",
    path: "/v1/sdk/keys/{keyId}",
    operationId: "revokeSdkKey",
    summary: "Revoke SDK key",
    description: "Its tokens stop working at once.",
    tags: keyTags,
    scope: "admin",
    request: { params: key },
    ok: { 200: json("Revoked", deletedOf("sdk.key"), rateLimited) },
    errors: [404, 409],
  });
  operation(r, {
    method: "get",
    path: "/v1/sdk/views",
    operationId: "listSdkServices",
    summary: "List SDK services",
    tags,
    scope: "view",
    ok: {
      200: json(
        "Every service with its views and actions",
        z.object({
          object: z.literal("list"),
          data: z.array(
            z.object({
              service: z.string(),
              title: z.string(),
              views: z.array(z.object({ name: z.string(), title: z.string() })),
              actions: z.array(PublicAction),
            }),
          ),
        }),
        rateLimited,
      ),
    },
  });
  operation(r, {
    method: "get",
    path: "/v1/sdk/view/{service}/{view}",
    operationId: "getSdkView",
    summary: "Fetch a view",
    description: "Takes view-specific query parameters (filters, `limit`, `after`) besides `sdui`.",
    tags,
    scope: "view",
    request: { params: pathParams("service", "view"), query: SduiQuery },
    ok: {
      200: json(
        "The view's definition (a component tree the widget renders), its data and the actions it may call",
        z.object({
          service: z.string(),
          view: z.string(),
          version: z.number().int(),
          definition: z.record(z.string(), z.unknown()),
          data: z.unknown(),
          actions: z.array(PublicAction),
        }),
        rateLimited,
      ),
    },
    errors: [400, 404],
  });
  operation(r, {
    method: "post",
    path: "/v1/sdk/action",
    operationId: "runSdkAction",
    summary: "Run an action",
    description: "A repeated `idempotency_key` returns the first result without acting twice.",
    tags,
    scope: "action",
    request: { body: { content: { "application/json": { schema: ActionRequest } } } },
    ok: {
      200: json(
        "The action's result and the views to refresh",
        z.object({
          ok: z.literal(true),
          result: z.record(z.string(), z.unknown()),
          refresh: z.array(z.string()),
        }),
        rateLimited,
      ),
    },
    errors: [400, 404, 409],
  });
  operation(r, {
    method: "get",
    path: "/v1/sdk/sdui-embed.js",
    operationId: "getWidgetScript",
    summary: "Widget script",
    description: "The `<cockpit-widget>` element as an ES module, revalidated by ETag; brotli or gzip as accepted.",
    tags,
    auth: "public",
    request: { headers: z.object({ "if-none-match": z.string().optional() }) },
    ok: {
      200: {
        description: "The script",
        headers: z.object({ etag: z.string() }),
        content: { "text/javascript": { schema: { type: "string" } } },
      },
      304: { description: "Not modified" },
    },
  });
}
