import { randomBytes } from "node:crypto";
import http from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNextServer, type RunningServer } from "../support/next-server";

/** GET /v1/sdk/sdui-embed.js through the production server: compressed as accepted, revalidated per encoding. */
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
function get(
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${server.url}/v1/sdk/sdui-embed.js`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      })
      .on("error", reject);
  });
}

describe("the widget script's encodings", () => {
  it("sends identity, gzip or brotli by Accept-Encoding, always with Vary, each with its own ETag and 304", async () => {
    const plain = await get({});
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.body.toString("utf8")).toContain("cockpit-widget");

    const gz = await get({ "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.headers.vary).toMatch(/accept-encoding/i);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(gz.body.length).toBeLessThan(plain.body.length / 2);

    // Browsers list both: brotli is preferred; a client's q-values are followed.
    const br = await get({ "accept-encoding": "gzip, deflate, br, zstd" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect((await get({ "accept-encoding": "br;q=0.2, gzip;q=0.8" })).headers["content-encoding"]).toBe("gzip");
    expect((await get({ "accept-encoding": "gzip;q=0, br;q=0" })).headers["content-encoding"]).toBeUndefined();

    const tags = [plain, gz, br].map((r) => r.headers.etag);
    expect(new Set(tags).size).toBe(3);
    expect((await get({ "accept-encoding": "br" })).headers.etag).toBe(br.headers.etag);

    const notModified = await get({ "accept-encoding": "br", "if-none-match": br.headers.etag! });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.etag).toBe(br.headers.etag);
    expect(notModified.headers.vary).toMatch(/accept-encoding/i);
    expect(notModified.body.length).toBe(0);
    // Another encoding's tag does not revalidate this one: its bytes differ.
    const other = await get({ "accept-encoding": "br", "if-none-match": gz.headers.etag! });
    expect(other.status).toBe(200);
    expect(other.headers["content-encoding"]).toBe("br");
    expect((await get({ "if-none-match": plain.headers.etag! })).status).toBe(304);
  });
});
