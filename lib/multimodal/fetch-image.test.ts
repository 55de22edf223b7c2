import https from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { encodeGrayPng } from "@/test/support/png";
import { selfSignedCert } from "@/test/support/self-signed-cert";
import { fetchImage, type FetchImageOptions } from "./fetch-image";

/**
 * Real HTTPS on loopback, which is refused by design, so tests pass the fetcher's one escape in
 * code. A second "internal" server is never allowed; its connection count proves refused requests
 * never reached it.
 */

const PARAM = "messages.0.content.1.image_url";
const PNG = encodeGrayPng(3, 2, new Uint8Array(6).fill(128));
const { key, cert } = selfSignedCert("localhost", ["localhost", "img.test", "a.test"]);

type Handler = (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void;
const routes = new Map<string, Handler>();
const image = https.createServer({ key, cert }, (req, res) => {
  const handler = routes.get(req.url!.split("?")[0]!);
  if (handler) handler(req, res);
  else res.writeHead(404).end();
});
let internalConnections = 0;
const internal = https.createServer({ key, cert }, (_req, res) =>
  res.writeHead(200, { "content-type": "image/png" }).end(PNG),
);
internal.on("connection", () => internalConnections++);

let port = 0;
let internalPort = 0;
let base = "";

function listen(s: https.Server): Promise<number> {
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as AddressInfo).port)));
}

beforeAll(async () => {
  port = await listen(image);
  internalPort = await listen(internal);
  base = `https://127.0.0.1:${port}`;
  routes.set("/img.png", (_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(PNG));
  routes.set("/no-type.png", (_req, res) => res.writeHead(200).end(PNG));
  routes.set("/html", (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html></html>"));
  routes.set("/fake.png", (_req, res) =>
    res.writeHead(200, { "content-type": "image/png" }).end("<html>not a png</html>"),
  );
  routes.set("/big-declared", (_req, res) =>
    res
      .writeHead(200, { "content-type": "image/png", "content-length": String(2048) })
      .end(Buffer.concat([PNG, Buffer.alloc(2048 - PNG.length)])),
  );
  routes.set("/big-chunked", (_req, res) => {
    res.writeHead(200, { "content-type": "image/png" });
    res.write(PNG);
    for (let i = 0; i < 4; i++) res.write(Buffer.alloc(1024));
    res.end();
  });
  routes.set("/stall", (_req, res) => {
    res.writeHead(200, { "content-type": "image/png" });
    res.write(PNG.subarray(0, 8)); // then nothing: the total time cap must end it
  });
  routes.set("/redirect", (req, res) => {
    const to = new URL(req.url!, "https://x").searchParams.get("to")!;
    res.writeHead(302, { location: to }).end();
  });
  for (let i = 1; i <= 4; i++)
    routes.set(`/hop${i}`, (_req, res) =>
      res.writeHead(301, { location: i === 1 ? "/img.png" : `/hop${i - 1}` }).end(),
    );
});

afterAll(() => {
  image.closeAllConnections();
  internal.closeAllConnections();
  image.close();
  internal.close();
});

const trusted = (extra: Partial<FetchImageOptions> = {}): FetchImageOptions => ({
  param: PARAM,
  allowAddresses: [`127.0.0.1:${port}`],
  ca: cert,
  ...extra,
});

async function refusal(url: string, opts: FetchImageOptions = trusted()): Promise<AppError> {
  const err = await fetchImage(url, opts).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  const e = err as AppError;
  expect(e.status).toBe(400);
  expect(e.param).toBe(PARAM);
  expect(e.wireCode).toBe("invalid_image_url");
  return e;
}

describe("fetchImage", () => {
  it("fetches an image from an allowed HTTPS server and reads its type and size", async () => {
    const img = await fetchImage(`${base}/img.png`, trusted());
    expect(img.mimeType).toBe("image/png");
    expect([img.width, img.height]).toEqual([3, 2]);
    expect(img.bytes.equals(PNG)).toBe(true);
    expect(img.redirects).toBe(0);
  });

  it("takes the type from the bytes when the server sends no Content-Type", async () => {
    expect((await fetchImage(`${base}/no-type.png`, trusted())).mimeType).toBe("image/png");
  });

  it("connects to the address its resolver checked, resolving once per connection", async () => {
    const asked: string[] = [];
    const img = await fetchImage(
      `https://img.test:${port}/img.png`,
      trusted({ resolve: async (host) => (asked.push(host), [{ address: "127.0.0.1", family: 4 }]) }),
    );
    expect(img.mimeType).toBe("image/png");
    expect(asked).toEqual(["img.test"]);
  });

  it("refuses a name when any of its addresses is not public (DNS rebinding, mixed answers)", async () => {
    const e = await refusal(
      `https://a.test:${port}/img.png`,
      trusted({
        resolve: async () => [
          { address: "127.0.0.1", family: 4 },
          { address: "10.0.0.7", family: 4 },
        ],
      }),
    );
    expect(e.message).toMatch(/does not resolve to a public address/);
  });

  it("refuses a name resolving to loopback on a port that is not allowed (the real resolver)", async () => {
    await refusal(`https://localhost:${internalPort}/img.png`);
    await refusal(`https://localhost.:${internalPort}/img.png`);
    expect(internalConnections).toBe(0);
  });

  it("gives a name that does not resolve the same answer as a private one", async () => {
    const e = await refusal("https://nothing.invalid/img.png");
    expect(e.message).toMatch(/does not resolve to a public address/);
  });

  describe("refuses every spelling of a non-public address before connecting", () => {
    it.each([
      ["0x7f.1", "loopback"],
      ["2130706433", "loopback"],
      ["0177.0.0.1", "loopback"],
      ["127.1", "loopback"],
      ["127.0.0.1.", "loopback"],
      ["%31%32%37.0.0.1", "loopback"],
      ["0x7f000001", "loopback"],
      ["[::1]", "loopback"],
      ["[::ffff:127.0.0.1]", "IPv4-mapped loopback"],
      ["[::ffff:7f00:1]", "IPv4-mapped loopback"],
      ["[0:0:0:0:0:ffff:127.0.0.1]", "IPv4-mapped loopback"],
      ["[::127.0.0.1]", "IPv4-compatible loopback"],
      ["[64:ff9b::127.0.0.1]", "NAT64 loopback"],
      ["[64:ff9b::a00:1]", "NAT64 private"],
      ["[2002:7f00:1::1]", "6to4 loopback"],
      ["[2002:c0a8:1::1]", "6to4 private"],
      ["0.0.0.0", "unspecified"],
      ["0", "unspecified"],
      ["[::]", "unspecified"],
      ["10.0.0.1", "private"],
      ["172.16.0.1", "private"],
      ["192.168.0.1", "private"],
      ["100.64.0.1", "shared (CGNAT)"],
      ["169.254.169.254", "link-local"],
      ["[fd00:ec2::254]", "unique local"],
      ["[fc00::1]", "unique local"],
      ["[fe80::1]", "link-local"],
      ["224.0.0.1", "multicast"],
      ["[ff02::1]", "multicast"],
      ["255.255.255.255", "reserved or broadcast"],
    ])("%s (%s)", async (host, why) => {
      const e = await refusal(`https://${host}:${internalPort}/img.png`);
      expect(e.message).toContain(`a ${why} address`);
      expect(internalConnections).toBe(0);
    });
  });

  it("refuses the allowed address on another port", async () => {
    await refusal(`https://127.0.0.1:${internalPort}/img.png`);
    expect(internalConnections).toBe(0);
  });

  it.each([
    "http://example.com/a.png",
    "ftp://example.com/a.png",
    "file:///etc/passwd",
    "data:image/png;base64,AAAA",
    "not a url",
    "https://user:pw@example.com/a.png",
  ])("refuses %s", async (url) => {
    await refusal(url);
  });

  describe("redirects", () => {
    it("follows up to three, each re-checked", async () => {
      const img = await fetchImage(`${base}/hop3`, trusted());
      expect(img.redirects).toBe(3);
      expect(img.url).toBe(`${base}/img.png`);
    });

    it("refuses a fourth", async () => {
      expect((await refusal(`${base}/hop4`)).message).toMatch(/more than 3 times/);
    });

    it.each([
      ["a private address", () => "https://10.0.0.1/img.png", /redirects to a private address/],
      ["the metadata address", () => "https://169.254.169.254/latest/meta-data/", /redirects to a link-local address/],
      [
        "loopback on another port",
        () => `https://127.0.0.1:${internalPort}/img.png`,
        /redirects to a loopback address/,
      ],
      [
        "an IPv4-mapped spelling",
        () => `https://[::ffff:127.0.0.1]:${port}/img.png`,
        /redirects to a IPv4-mapped loopback address/,
      ],
      ["plain http", () => `http://127.0.0.1:${port}/img.png`, /redirects to a http URL/],
    ])("refuses one to %s", async (_what, target, message) => {
      const e = await refusal(`${base}/redirect?to=${encodeURIComponent(target())}`);
      expect(e.message).toMatch(message);
      expect(internalConnections).toBe(0);
    });

    it("refuses one to a name resolving privately", async () => {
      const e = await refusal(
        `${base}/redirect?to=${encodeURIComponent(`https://a.test:${internalPort}/img.png`)}`,
        trusted({ resolve: async () => [{ address: "127.0.0.1", family: 4 }] }),
      );
      expect(e.message).toMatch(/does not resolve to a public address/);
      expect(internalConnections).toBe(0);
    });
  });

  describe("content", () => {
    it("refuses a non-image Content-Type", async () => {
      expect((await refusal(`${base}/html`)).message).toMatch(/served 'text\/html', not an image/);
    });

    it("refuses bytes that are not an image whatever the header says", async () => {
      expect((await refusal(`${base}/fake.png`)).message).toMatch(/did not serve a PNG, JPEG, GIF or WebP/);
    });

    it("refuses a declared length over the byte cap", async () => {
      expect((await refusal(`${base}/big-declared`, trusted({ maxBytes: 1024 }))).message).toMatch(
        /larger than 1024 bytes/,
      );
    });

    it("stops reading a chunked body at the byte cap", async () => {
      expect((await refusal(`${base}/big-chunked`, trusted({ maxBytes: 1024 }))).message).toMatch(
        /larger than 1024 bytes/,
      );
    });

    it("refuses an HTTP error", async () => {
      expect((await refusal(`${base}/missing.png`)).message).toMatch(/HTTP 404/);
    });

    it("ends a body that stalls at the total time cap", async () => {
      expect((await refusal(`${base}/stall`, trusted({ timeoutMs: 300 }))).message).toMatch(/within 300 ms/);
    });
  });

  it("does not trust the test server's certificate unless its CA is passed", async () => {
    await refusal(`${base}/img.png`, trusted({ ca: undefined }));
  });

  it("rethrows the caller's abort instead of a 400", async () => {
    const ac = new AbortController();
    const reason = new Error("client went away");
    const pending = fetchImage(`${base}/stall`, trusted({ signal: ac.signal }));
    setTimeout(() => ac.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });
});
