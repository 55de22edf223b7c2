import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { TriggerInput } from "@/lib/webhooks/schemas";
import { json, operation, pathParams } from "../common/components";

/** Routes without a key: inbound webhooks and this document. */
export function registerPublicPaths(r: OpenAPIRegistry) {
  operation(r, {
    method: "post",
    path: "/v1/public/triggers/{companyId}/{secret}",
    operationId: "triggerWebhook",
    summary: "Send an inbound webhook event",
    description:
      "The secret in the path is the credential. Wakes the bound agent, or every agent whose topic patterns match `event_topic`. `Idempotency-Key` (or Standard Webhooks' `webhook-id`) deduplicates for 24 hours; endpoints that require signatures check `webhook-signature`.",
    tags: ["Webhooks"],
    auth: "public",
    request: {
      params: pathParams("companyId", "secret"),
      headers: z.object({
        "idempotency-key": z.string().optional(),
        "webhook-id": z.string().optional(),
        "webhook-timestamp": z.string().optional(),
        "webhook-signature": z.string().optional(),
      }),
      body: { content: { "application/json": { schema: TriggerInput } } },
    },
    ok: {
      202: json(
        "Accepted: the event and its job are committed",
        z.object({ id: z.string().meta({ example: "evt_…" }), status: z.literal("accepted") }),
      ),
    },
    errors: [400, 401, 403, 413, 429, 503],
  });
  operation(r, {
    method: "get",
    path: "/v1/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI document",
    description: "Rendered at `/docs/api`. Revalidated by ETag.",
    tags: ["Meta"],
    auth: "public",
    request: { headers: z.object({ "if-none-match": z.string().optional() }) },
    ok: {
      200: {
        description: "The OpenAPI 3.1 document",
        headers: z.object({ etag: z.string() }),
        content: { "application/json": { schema: { type: "object" } } },
      },
      304: { description: "Not modified" },
    },
  });
}
