import { randomBytes } from "node:crypto";
import { fetch } from "undici";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { MAX_JSON_DEPTH } from "@/lib/http/read-json";
import { createWebhook, INVALID_TRIGGER_WINDOW_S, MAX_INVALID_TRIGGERS_PER_ADDRESS, triggerPath } from "@/lib/webhooks";
import { useGateway } from "../support/gateway";
import { clientFrom, randomLoopback } from "../support/panel-sign-in";

/**
 * Attacks on the public trigger URL and on JSON bodies, over real HTTP against the production
 * server: guessing trigger URLs from one client address (each client here connects from its own
 * 127.x.y.z, the address taken from the socket), and bodies nested thousands of levels deep.
 */
const gw = useGateway();

async function endpoint() {
  const { companyId, key } = await gw.tenant(100);
  const { secret } = await createWebhook(db, { companyId, agentId: null, name: "Bus" });
  return { companyId, key, url: `${gw.server.url}${triggerPath(companyId, secret)}` };
}

const event = JSON.stringify({ event_topic: "orders.created", payload: { n: 1 } });
const post = (url: string, body: string, from?: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    dispatcher: from ? clientFrom(from) : undefined,
  });

/** JSON text with `inner` under `depth` levels of arrays. */
const deep = (depth: number, inner = "1") => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;

describe("invalid trigger URLs are throttled per client address", () => {
  it("after the limit of refused URLs an address gets 429 with Retry-After before any lookup; valid deliveries from elsewhere are accepted", async () => {
    const { companyId, url } = await endpoint();
    const attacker = randomLoopback();
    for (let i = 0; i < MAX_INVALID_TRIGGERS_PER_ADDRESS; i++) {
      // A forged X-Forwarded-For does not give the attacker a fresh budget.
      const res = await post(
        `${gw.server.url}${triggerPath(companyId, `whs_${randomBytes(20).toString("hex")}`)}`,
        event,
        attacker,
        { "x-forwarded-for": `198.51.100.${i + 1}` },
      );
      expect(res.status, `guess ${i + 1}`).toBe(403);
      await res.arrayBuffer();
    }
    const throttled = await post(`${gw.server.url}${triggerPath(companyId, "whs_nope")}`, event, attacker);
    expect(throttled.status).toBe(429);
    const retryAfter = Number(throttled.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(INVALID_TRIGGER_WINDOW_S);
    expect(throttled.headers.get("x-ratelimit-limit-requests")).toBe(String(MAX_INVALID_TRIGGERS_PER_ADDRESS));
    expect(throttled.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(await throttled.json()).toMatchObject({ error: { type: "rate_limit_error", code: "rate_limit_exceeded" } });

    // Another company's guesses from the same address are refused the same way.
    const other = await endpoint();
    expect((await post(`${gw.server.url}${triggerPath(other.companyId, "whs_nope")}`, event, attacker)).status).toBe(
      429,
    );

    // The sender, at its own address, is not slowed by the attacker.
    const sender = randomLoopback();
    for (let i = 0; i < 5; i++) expect((await post(url, event, sender)).status).toBe(202);
    // The default client (127.0.0.1) too.
    expect((await post(url, event)).status).toBe(202);
  });

  it("valid deliveries never count against their address", async () => {
    const { url } = await endpoint();
    const sender = randomLoopback();
    for (let i = 0; i < MAX_INVALID_TRIGGERS_PER_ADDRESS + 5; i++)
      expect((await post(url, event, sender)).status).toBe(202);
  });
});

describe("JSON nested deeper than the limit is a 400, never a 500", () => {
  const tooDeep = (status: number, json: any) => {
    expect(status).toBe(400);
    expect(json, JSON.stringify(json)).toMatchObject({
      error: { type: "invalid_request_error", code: "json_too_deep" },
    });
  };

  it("a webhook payload nested 10,000 deep", async () => {
    const { url } = await endpoint();
    const res = await post(url, `{"event_topic":"orders.created","payload":{"x":${deep(10_000)}}}`);
    tooDeep(res.status, await res.json());
    // At the limit it is accepted.
    const fits = await post(url, `{"event_topic":"orders.created","payload":{"x":${deep(MAX_JSON_DEPTH - 2)}}}`);
    expect(fits.status).toBe(202);
  });

  it("chat completion metadata, an SDK action's input, a tool's json_schema, a message's content", async () => {
    const { key } = await gw.tenant(100);
    const bodies: [string, string][] = [
      [
        "/v1/chat/completions",
        `{"model":"local-mini","messages":[{"role":"user","content":"hi"}],"metadata":{"x":${deep(10_000)}}}`,
      ],
      ["/v1/sdk/action", `{"service":"crm","action":"create_deal","input":{"title":${deep(10_000, '"x"')}}}`],
      [
        "/v1/tools",
        `{"name":"deep","description":"d","json_schema":{"type":"object","properties":{"a":${deep(10_000, "{}")}}},"python_code":"def deep():\\n    return 1\\n"}`,
      ],
      ["/v1/threads", `{"messages":[{"role":"user","content":${deep(10_000, '"x"')}}]}`],
      // Over 1 MiB: decoded and parsed in the CPU worker, which measured the tools by serializing them.
      [
        "/v1/chat/completions",
        `{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"${"a ".repeat(600_000)}"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"x":${deep(10_000)}}}}]}`,
      ],
    ];
    for (const [path, body] of bodies) {
      const res = await fetch(`${gw.server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body,
      });
      const json = await res.json();
      expect(res.status, `${path}: ${JSON.stringify(json)}`).toBe(400);
      tooDeep(res.status, json);
    }
  });
});
