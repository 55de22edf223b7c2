import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { listRouteOperations } from "@/test/support/v1-routes";
import { generateOpenApiDocument, TAGS } from "./generate";
import { getOpenApiDocument } from "./index";

type Operation = {
  tags?: string[];
  operationId?: string;
  summary?: string;
  security?: unknown[];
  responses: Record<string, unknown>;
  requestBody?: unknown;
};
const doc = generateOpenApiDocument({ version: "0.0.0-test" });
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

function documented(): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths ?? {}).flatMap(([p, item]) =>
    METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((m) => ({
      method: m,
      path: p,
      op: (item as Record<string, Operation>)[m]!,
    })),
  );
}

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toBe("3.1.0");
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it("documents every /v1 route file's methods, and nothing that has no route", () => {
    const routes = listRouteOperations(path.join(process.cwd(), "app"));
    expect(routes.length).toBeGreaterThan(40);
    const key = (o: { method: string; path: string }) => `${o.method.toUpperCase()} ${o.path}`;
    const inDoc = new Set(documented().map(key));
    const inApp = new Set(routes.map(key));
    const missing = [...inApp].filter((k) => !inDoc.has(k)).sort();
    const stale = [...inDoc].filter((k) => !inApp.has(k)).sort();
    // A new route: register it in its family's module under lib/openapi/paths/ (docs/api.md).
    expect(missing, "routes missing from lib/openapi/paths/").toEqual([]);
    expect(stale, "documented operations without a route file").toEqual([]);
  });

  it("reads the methods a route answers, not the 405s it exports", () => {
    const routes = listRouteOperations(path.join(process.cwd(), "app"));
    const threads = routes.filter((r) => r.path === "/v1/threads/{threadId}").map((r) => r.method);
    expect(threads).toEqual(["get"]);
    expect(routes.some((r) => r.path.includes("..."))).toBe(false);
  });

  it("gives every operation a unique id, a summary and a listed tag", () => {
    const ops = documented();
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ops.length);
    const tags = new Set(TAGS.map((t) => t.name));
    for (const { method, path: p, op } of ops) {
      expect(op.summary, `${method} ${p}`).toBeTruthy();
      expect(op.tags?.every((t) => tags.has(t)) && op.tags.length > 0, `${method} ${p}: ${op.tags}`).toBe(true);
    }
  });

  it("uses Bearer by default, and no security on the public routes", () => {
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(doc.components?.securitySchemes ?? {}).sort()).toEqual(["apiKeyAuth", "bearerAuth"]);
    const open = documented()
      .filter((o) => Array.isArray(o.op.security) && o.op.security.length === 0)
      .map((o) => o.path)
      .sort();
    expect(open).toEqual(["/v1/openapi.json", "/v1/public/triggers/{companyId}/{secret}", "/v1/sdk/sdui-embed.js"]);
  });

  it("gives every keyed operation the shared error responses for auth, scope and rate limits", () => {
    for (const { method, path: p, op } of documented()) {
      if (op.security?.length === 0) continue;
      for (const status of ["401", "403", "429"])
        expect(op.responses[status], `${method} ${p} ${status}`).toEqual(
          // Anthropic's routes answer Anthropic's error body.
          p.startsWith("/v1/messages")
            ? {
                description: expect.any(String),
                content: { "application/json": { schema: { $ref: "#/components/schemas/AnthropicError" } } },
              }
            : { $ref: `#/components/responses/Error${status}` },
        );
      // A body that fails validation is a 400.
      if (op.requestBody) expect(op.responses["400"], `${method} ${p} 400`).toBeDefined();
    }
    expect(doc.components?.schemas?.Error).toMatchObject({ properties: { error: { required: expect.any(Array) } } });
  });

  it("takes request bodies from the routes' own schemas", () => {
    const body = (p: string, m: "post" | "patch") =>
      (doc.paths?.[p]?.[m]?.requestBody as { content: Record<string, { schema: Record<string, unknown> }> }).content[
        "application/json"
      ]!.schema;
    // ChatCompletionInput is strict, needs model and messages, and caps messages.
    expect(body("/v1/chat/completions", "post")).toMatchObject({
      additionalProperties: false,
      required: expect.arrayContaining(["model", "messages"]),
      properties: { messages: { minItems: 1, maxItems: 10_000 } },
    });
    expect(body("/v1/knowledge/{collectionId}/search", "post")).toMatchObject({
      properties: { top_k: { minimum: 1, maximum: 50, default: 10 } },
    });
  });

  it("is served once per process with a content-hash ETag and the package's version", () => {
    const served = getOpenApiDocument();
    expect(getOpenApiDocument()).toBe(served);
    expect(served.etag).toMatch(/^"[\w-]{22}"$/);
    const parsed = JSON.parse(served.body) as { info: { title: string; version: string }; servers: unknown };
    expect(parsed.info.title).toBe("Cockpit Gateway API");
    expect(parsed.info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(parsed.servers).toEqual([{ url: "/" }]);
  });
});
