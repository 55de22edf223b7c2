import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Client, WidgetError, type Credentials } from "./api";

const KEY = `sk-cp-${"k".repeat(40)}`;
const creds = (over: Partial<Credentials> = {}): Credentials => ({
  gateway: "https://gw.test",
  authToken: KEY,
  tokenUrl: null,
  tokenProvider: null,
  service: "crm",
  view: "pipeline",
  ...over,
});
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const unauthorized = () =>
  json(401, {
    error: {
      message: "This API key has been revoked",
      type: "authentication_error",
      code: "revoked_api_key",
      param: null,
    },
  });

describe("Client (token exchange, renewal, 401 retry)", () => {
  let calls: { url: string; auth: string | null }[];
  let handler: (url: string, n: number) => Response;

  beforeEach(() => {
    vi.useFakeTimers();
    calls = [];
    vi.stubGlobal("fetch", async (url: string, init: RequestInit = {}) => {
      const auth = new Headers(init.headers).get("authorization");
      calls.push({ url, auth });
      return handler(url, calls.filter((c) => c.url === url).length);
    });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("exchanges the key once, sends the token, and renews it at 80 % of its lifetime", async () => {
    handler = (url, n) =>
      url.endsWith("/v1/sdk/token") ? json(200, { token: `jwt.${n}.x`, expires_in: 300 }) : json(200, { ok: n });
    const client = new Client(creds(), () => {});
    expect(await client.call("/v1/sdk/view/crm/pipeline")).toEqual({ ok: 1 });
    await client.call("/v1/sdk/view/crm/pipeline");
    expect(calls.map((c) => c.auth)).toEqual([`Bearer ${KEY}`, "Bearer jwt.1.x", "Bearer jwt.1.x"]);
    await vi.advanceTimersByTimeAsync(239_000);
    expect(calls.filter((c) => c.url.endsWith("/token"))).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(calls.filter((c) => c.url.endsWith("/token"))).toHaveLength(2);
    await client.call("/v1/sdk/view/crm/pipeline");
    expect(calls.at(-1)!.auth).toBe("Bearer jwt.2.x");
    client.stop();
  });

  it("a 401 gets one renewal and one retry", async () => {
    handler = (url, n) =>
      url.endsWith("/v1/sdk/token")
        ? json(200, { token: `jwt.${n}.x`, expires_in: 300 })
        : n === 1
          ? unauthorized()
          : json(200, { ok: true });
    const client = new Client(creds(), () => {});
    expect(await client.call("/v1/sdk/view/crm/pipeline")).toEqual({ ok: true });
    expect(calls.map((c) => c.auth)).toEqual([`Bearer ${KEY}`, "Bearer jwt.1.x", `Bearer ${KEY}`, "Bearer jwt.2.x"]);
    client.stop();
  });

  it("a revoked key: the retry's exchange is refused and the call fails with its 401", async () => {
    handler = (url, n) =>
      url.endsWith("/v1/sdk/token")
        ? n === 1
          ? json(200, { token: "jwt.1.x", expires_in: 300 })
          : unauthorized()
        : unauthorized();
    const client = new Client(creds(), () => {});
    const err = (await client.call("/v1/sdk/view/crm/pipeline").catch((e: unknown) => e)) as WidgetError;
    expect(err).toBeInstanceOf(WidgetError);
    expect(err.detail).toEqual({
      status: 401,
      code: "revoked_api_key",
      message: "This API key has been revoked",
      param: null,
    });
    client.stop();
  });

  it("a background renewal refused reports it; a network error retries later", async () => {
    let down = false;
    handler = (url, n) => {
      if (down) throw new TypeError("fetch failed");
      return url.endsWith("/v1/sdk/token")
        ? n === 1
          ? json(200, { token: "jwt.1.x", expires_in: 10 })
          : unauthorized()
        : json(200, {});
    };
    const failed: WidgetError[] = [];
    const client = new Client(creds(), (e) => failed.push(e));
    await client.call("/v1/sdk/view/crm/pipeline");
    down = true;
    await vi.advanceTimersByTimeAsync(8_000);
    expect(failed).toEqual([]);
    down = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(failed.map((e) => e.status)).toEqual([401]);
  });

  it("a JWT given directly is used as is and never exchanged or retried", async () => {
    handler = () => unauthorized();
    const client = new Client(creds({ authToken: "a.b.c" }), () => {});
    await expect(client.call("/v1/sdk/view/crm/pipeline")).rejects.toBeInstanceOf(WidgetError);
    expect(calls.map((c) => [c.url, c.auth])).toEqual([["https://gw.test/v1/sdk/view/crm/pipeline", "Bearer a.b.c"]]);
  });

  it("a tokenProvider answering a bare string or {token, expires_at} is called again before expiry", async () => {
    let n = 0;
    const provider = vi.fn(async () =>
      ++n === 1 ? { token: "p.1.x", expires_at: Math.floor(Date.now() / 1000) + 100 } : "p.2.x",
    );
    handler = () => json(200, {});
    const client = new Client(creds({ authToken: null, tokenProvider: provider }), () => {});
    await client.call("/v1/sdk/view/crm/pipeline");
    await vi.advanceTimersByTimeAsync(81_000);
    expect(provider).toHaveBeenCalledTimes(2);
    await client.call("/v1/sdk/view/crm/pipeline");
    expect(calls.at(-1)!.auth).toBe("Bearer p.2.x");
    client.stop();
  });
});
