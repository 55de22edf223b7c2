import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { GUARDRAIL_ACTIONS, GUARDRAIL_MATCH_TYPES, GUARDRAIL_STAGES } from "@/db/enums";
import { CreateGuardrailInput, UpdateGuardrailInput } from "@/lib/guardrails/schemas";
import type { toPublicGuardrail } from "@/lib/guardrails/to-public-guardrail";
import { PageQuery } from "@/lib/pagination";
import { deletedOf, describes, json, listOf, operation, pathParams, rateLimited, unixTime } from "../common/components";

/** Guardrail rules applied to runs and completions (CONTRACT 6). */
export function registerGuardrailPaths(r: OpenAPIRegistry) {
  const tags = ["Guardrails"];
  const Guardrail = r.register(
    "Guardrail",
    describes<ReturnType<typeof toPublicGuardrail>>()(
      z.object({
        id: z.string(),
        object: z.literal("guardrail"),
        name: z.string(),
        stage: z.enum(GUARDRAIL_STAGES),
        match: z.object({ type: z.enum(GUARDRAIL_MATCH_TYPES), pattern: z.string() }),
        action: z.enum(GUARDRAIL_ACTIONS),
        is_active: z.boolean(),
        created_at: unixTime(),
        updated_at: unixTime(),
      }),
    ),
  );
  const rule = pathParams("ruleId");

  operation(r, {
    method: "get",
    path: "/v1/guardrails",
    operationId: "listGuardrails",
    summary: "List guardrail rules",
    tags,
    scope: "chat",
    request: { query: PageQuery },
    ok: { 200: json("The rules", listOf(Guardrail), rateLimited) },
    errors: [400],
  });
  operation(r, {
    method: "post",
    path: "/v1/guardrails",
    operationId: "createGuardrail",
    summary: "Create guardrail rule",
    tags,
    scope: "chat",
    request: { body: { content: { "application/json": { schema: CreateGuardrailInput } } } },
    ok: { 201: json("The new rule", Guardrail, rateLimited) },
    errors: [400],
  });
  operation(r, {
    method: "get",
    path: "/v1/guardrails/{ruleId}",
    operationId: "getGuardrail",
    summary: "Retrieve guardrail rule",
    tags,
    scope: "chat",
    request: { params: rule },
    ok: { 200: json("The rule", Guardrail, rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "patch",
    path: "/v1/guardrails/{ruleId}",
    operationId: "updateGuardrail",
    summary: "Update guardrail rule",
    tags,
    scope: "chat",
    request: { params: rule, body: { content: { "application/json": { schema: UpdateGuardrailInput } } } },
    ok: { 200: json("The updated rule", Guardrail, rateLimited) },
    errors: [400, 404],
  });
  operation(r, {
    method: "delete",
    path: "/v1/guardrails/{ruleId}",
    operationId: "deleteGuardrail",
    summary: "Delete guardrail rule",
    tags,
    scope: "chat",
    request: { params: rule },
    ok: { 200: json("Deleted", deletedOf("guardrail"), rateLimited) },
    errors: [404],
  });
}
