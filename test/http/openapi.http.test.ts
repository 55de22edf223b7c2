import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNextServer, type RunningServer } from "../support/next-server";

/** /v1/openapi.json and /docs/api through the production server, with no key and no panel session. */
let server: RunningServer;

beforeAll(async () => {
  server = await startNextServer({
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    LOG_LEVEL: "error",
  });
});

afterAll(async () => {
  await server?.stop();
});

/** Raw bytes and headers: node:http decodes nothing, unlike fetch. */
function request(
  path: string,
  opts: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .request(`${server.url}${path}`, { method: opts.method ?? "GET", headers: opts.headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      })
      .on("error", reject)
      .end();
  });
}

describe("GET /v1/openapi.json", () => {
  it("serves the OpenAPI 3.1 document without a key, CORS open, revalidated by ETag", async () => {
    const res = await request("/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(res.headers["x-request-id"]).toBeTruthy();
    expect(res.headers["cache-control"]).toMatch(/public/);
    const doc = JSON.parse(res.body.toString("utf8")) as {
      openapi: string;
      info: { title: string };
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBe("Cockpit Gateway API");
    expect(doc.paths["/v1/chat/completions"]?.post?.operationId).toBe("createChatCompletion");
    expect(doc.paths["/v1/threads/{threadId}/runs"]?.post).toBeDefined();

    const etag = res.headers.etag!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await request("/v1/openapi.json", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(etag);
    expect(again.body.length).toBe(0);
    expect((await request("/v1/openapi.json", { headers: { "if-none-match": '"other"' } })).status).toBe(200);
  });

  it("ignores a bad key, answers preflight, and 405s other methods in the OpenAI error body", async () => {
    const withBadKey = await request("/v1/openapi.json", { headers: { authorization: "Bearer sk-cp-nope" } });
    expect(withBadKey.status).toBe(200);

    const preflight = await request("/v1/openapi.json", {
      method: "OPTIONS",
      headers: { origin: "https://example.com", "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-methods"]).toMatch(/GET/);

    const post = await request("/v1/openapi.json", { method: "POST" });
    expect(post.status).toBe(405);
    expect(JSON.parse(post.body.toString("utf8"))).toMatchObject({ error: { type: "invalid_request_error" } });
  });
});

describe("/docs/api", () => {
  it("serves the reference page to anyone, with a CSP that allows only its own script and origin", async () => {
    const res = await request("/docs/api");
    expect(res.status).toBe(200); // not a redirect to /login
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    const html = res.body.toString("utf8");
    const src = /<script src="(\/docs\/api\/scalar\.js\?v=[\w-]+)"><\/script>/.exec(html)?.[1];
    expect(src).toBeDefined();
    expect(html).toContain('"url":"/v1/openapi.json"');

    const csp = res.headers["content-security-policy"]!;
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/connect-src 'self'/);
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    // The one inline script is allowed by its hash, and nothing else inline is.
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(inline).toHaveLength(1);
    const hash = createHash("sha256").update(inline[0]!).digest("base64");
    expect(csp).toContain(`'sha256-${hash}'`);

    const script = await request(src!);
    expect(script.status).toBe(200);
    expect(script.headers["content-type"]).toMatch(/^text\/javascript/);
    expect(script.headers["cache-control"]).toMatch(/immutable/);
    expect(script.body.length).toBeGreaterThan(1_000_000);
    expect(script.body.toString("utf8")).toContain("createApiReference");

    const etag = script.headers.etag!;
    expect((await request(src!, { headers: { "if-none-match": etag } })).status).toBe(304);
  });
});
