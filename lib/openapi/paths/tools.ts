import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { CreateToolInput, ToolListQuery, UpdateToolInput } from "@/lib/tools/schemas";
import type { toPublicTool } from "@/lib/tools/to-public-tool";
import { deletedOf, describes, json, listOf, operation, pathParams, rateLimited, unixTime } from "../common/components";

/** Server-side Python tools that runs may call (SPEC, CONTRACT 5.6, 6). */
export function registerToolPaths(r: OpenAPIRegistry) {
  const tags = ["Tools"];
  const Tool = r.register(
    "Tool",
    describes<ReturnType<typeof toPublicTool>>()(
      z.object({
        id: z.string().meta({ example: "tool_…" }),
        object: z.literal("tool"),
        name: z.string(),
        description: z.string(),
        json_schema: z.record(z.string(), z.unknown()),
        python_code: z.string(),
        is_active: z.boolean(),
        created_at: unixTime(),
        updated_at: unixTime(),
      }),
    ),
  );
  const tool = pathParams("toolId");

  operation(r, {
    method: "get",
    path: "/v1/tools",
    operationId: "listTools",
    summary: "List tools",
    tags,
    scope: "chat",
    request: { query: ToolListQuery },
    ok: { 200: json("The tools (deactivated ones included)", listOf(Tool), rateLimited) },
    errors: [400],
  });
  operation(r, {
    method: "post",
    path: "/v1/tools",
    operationId: "createTool",
    summary: "Create tool",
    tags,
    scope: "chat",
    request: { body: { content: { "application/json": { schema: CreateToolInput } } } },
    ok: {
      201: json("The new tool", Tool, rateLimited),
      200: json("The company's active tool of that name, unchanged", Tool, rateLimited),
    },
    errors: [400],
  });
  operation(r, {
    method: "get",
    path: "/v1/tools/{toolId}",
    operationId: "getTool",
    summary: "Retrieve tool",
    tags,
    scope: "chat",
    request: { params: tool },
    ok: { 200: json("The tool", Tool, rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "patch",
    path: "/v1/tools/{toolId}",
    operationId: "updateTool",
    summary: "Update tool",
    tags,
    scope: "chat",
    request: { params: tool, body: { content: { "application/json": { schema: UpdateToolInput } } } },
    ok: { 200: json("The updated tool", Tool, rateLimited) },
    errors: [400, 404, 409],
  });
  operation(r, {
    method: "delete",
    path: "/v1/tools/{toolId}",
    operationId: "deleteTool",
    summary: "Delete tool",
    tags,
    scope: "chat",
    request: { params: tool },
    ok: { 200: json("Deleted (soft)", deletedOf("tool"), rateLimited) },
    errors: [404],
  });
}
