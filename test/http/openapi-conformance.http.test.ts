import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { useGateway } from "../support/gateway";

/**
 * The document against the server's real answers: each call below is checked against the schema
 * /v1/openapi.json gives for its method, path and status (errors included), so a response that
 * drifts from its documented shape (a type, a null, a missing field) fails here.
 */
const gw = useGateway();

type Doc = { paths: Record<string, Record<string, { responses: Record<string, Documented> }>> };
type Documented = { content?: Record<string, { schema?: object }> };
let doc: Doc;
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const compiled = new Map<string, ValidateFunction>();

beforeAll(async () => {
  const res = await fetch(`${gw.server.url}/v1/openapi.json`);
  expect(res.status).toBe(200);
  // Inline every $ref, so each response schema compiles on its own.
  doc = (await SwaggerParser.dereference((await res.json()) as never)) as unknown as Doc;
});

let key: string;

/** Calls `method path` and checks the answer's status and body against the document. */
async function call(method: string, template: string, params: Record<string, string>, status: number, body?: unknown) {
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]!));
  const res = await gw.call(key, method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.json)}`).toBe(status);
  const documented = doc.paths[template.split("?")[0]!]?.[method.toLowerCase()]?.responses[String(status)];
  expect(documented, `${method} ${template} documents no ${status}`).toBeDefined();
  const schema = documented!.content?.["application/json"]?.schema;
  expect(schema, `${method} ${template} ${status} has no JSON schema`).toBeDefined();
  const id = `${method} ${template} ${status}`;
  let validate = compiled.get(id);
  if (!validate) compiled.set(id, (validate = ajv.compile(schema!)));
  expect(validate(res.json) ? [] : validate.errors, `${id}: ${JSON.stringify(res.json).slice(0, 500)}`).toEqual([]);
  // A schema that took anything would prove nothing.
  expect(validate({}), `${id} accepts {}`).toBe(false);
  return res.json;
}

describe("real answers match /v1/openapi.json", () => {
  beforeAll(async () => {
    key = (await gw.tenant(1000)).key;
  });

  it("chat, embeddings, models and the account", async () => {
    await call("GET", "/v1/me", {}, 200);
    await call("GET", "/v1/models", {}, 200);
    await call("GET", "/v1/models/{model}", { model: "local-chat-latest" }, 200);
    await call("GET", "/v1/models/{model}", { model: "local-embedding" }, 200);
    await call("GET", "/v1/models/{model}", { model: "no-such-model" }, 404);
    await call("POST", "/v1/chat/completions", {}, 200, {
      model: "local-chat-latest",
      messages: [{ role: "user", content: "Hello" }],
    });
    await call("POST", "/v1/chat/completions", {}, 400, { model: "local-chat-latest", messages: [] });
    await call("POST", "/v1/embeddings", {}, 200, { model: "local-embedding", input: ["a", "b"] });
    await call("POST", "/v1/usage", {}, 201, { source: "whisper", duration_s: 2 });
    await call("GET", "/v1/usage", {}, 200);
  });

  it("threads, messages, runs and steps", async () => {
    const thread = await call("POST", "/v1/threads", {}, 201, {
      metadata: { origin: "conformance" },
      messages: [{ role: "user", content: "Hello" }],
    });
    const t = { threadId: thread.id as string };
    await call("GET", "/v1/threads", {}, 200);
    await call("GET", "/v1/threads/{threadId}", t, 200);
    await call("GET", "/v1/threads/{threadId}", { threadId: "thread_missing" }, 404);
    await call("POST", "/v1/threads/{threadId}/messages", t, 201, { role: "user", content: "Again" });
    await call("POST", "/v1/threads/{threadId}/messages/bulk", t, 201, {
      messages: [{ role: "user", content: [{ type: "text", text: "Parts" }] }],
    });
    await call("GET", "/v1/threads/{threadId}/messages", t, 200);
    const run = await call("POST", "/v1/threads/{threadId}/runs", t, 200, { model: "local-chat-latest" });
    const r = { ...t, runId: run.id as string };
    await call("GET", "/v1/threads/{threadId}/runs", t, 200);
    await call("GET", "/v1/threads/{threadId}/runs/{runId}", r, 200);
    await call("GET", "/v1/threads/{threadId}/runs/{runId}/steps", r, 200);
    await call("POST", "/v1/threads/{threadId}/runs/{runId}/cancel", r, 409);
  });

  it("profiles, tools and guardrails", async () => {
    const profile = await call("POST", "/v1/profiles", {}, 201, { name: "Support", system_prompt: "Be brief." });
    const p = { profileId: profile.id as string };
    await call("GET", "/v1/profiles", {}, 200);
    await call("GET", "/v1/profiles?full=true", {}, 200);
    await call("PATCH", "/v1/profiles/{profileId}", p, 200, { model_slug: null });
    await call("GET", "/v1/profiles/{profileId}", p, 200);
    await call("DELETE", "/v1/profiles/{profileId}", p, 200);

    const tool = await call("POST", "/v1/tools", {}, 201, {
      name: "add_numbers",
      json_schema: { type: "object", properties: { a: { type: "number" } } },
      python_code: "def add_numbers(a):\n    return a + 1\n",
    });
    const tl = { toolId: tool.id as string };
    await call("GET", "/v1/tools", {}, 200);
    await call("PATCH", "/v1/tools/{toolId}", tl, 200, { description: "Adds one" });
    await call("GET", "/v1/tools/{toolId}", tl, 200);
    await call("DELETE", "/v1/tools/{toolId}", tl, 200);

    const rule = await call("POST", "/v1/guardrails", {}, 201, {
      name: "No secrets",
      stage: "input",
      match: { type: "keyword", pattern: "password" },
      action: "redact",
    });
    const g = { ruleId: rule.id as string };
    await call("GET", "/v1/guardrails", {}, 200);
    await call("PATCH", "/v1/guardrails/{ruleId}", g, 200, { is_active: false });
    await call("GET", "/v1/guardrails/{ruleId}", g, 200);
    await call("DELETE", "/v1/guardrails/{ruleId}", g, 200);
  });

  it("knowledge", async () => {
    const collection = await call("POST", "/v1/knowledge", {}, 201, { name: "Handbook" });
    const c = { collectionId: collection.id as string };
    await call("GET", "/v1/knowledge", {}, 200);
    await call("GET", "/v1/knowledge/{collectionId}", c, 200);
    await call("GET", "/v1/knowledge/{collectionId}/documents", c, 200);
    await call("POST", "/v1/knowledge/{collectionId}/search", c, 200, { query: "holidays" });
    await call("GET", "/v1/knowledge/{collectionId}/documents/{documentId}", { ...c, documentId: "doc_missing" }, 404);
    await call("DELETE", "/v1/knowledge/{collectionId}", c, 200);
  });

  it("SDK keys, tokens and views", async () => {
    const created = await call("POST", "/v1/sdk/keys", {}, 201, { name: "Child", scopes: ["chat"] });
    const k = { keyId: created.id as string };
    await call("GET", "/v1/sdk/keys", {}, 200);
    await call("GET", "/v1/sdk/keys/{keyId}", k, 200);
    await call("DELETE", "/v1/sdk/keys/{keyId}", k, 200);
    await call("POST", "/v1/sdk/token", {}, 200, { scopes: ["view"] });
    await call("GET", "/v1/sdk/views", {}, 200);
    await call("GET", "/v1/sdk/view/{service}/{view}", { service: "crm", view: "pipeline" }, 200);
    await call("GET", "/v1/sdk/view/{service}/{view}", { service: "crm", view: "nope" }, 404);
  });
});
