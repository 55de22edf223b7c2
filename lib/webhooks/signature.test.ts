import { describe, expect, it } from "vitest";
import { newSigningSecret, signPayload, verifySignature } from "./signature";

const headers = (h: Record<string, string>) => new Headers(h);

describe("Standard Webhooks signatures", () => {
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const body = '{"event_topic":"orders.created","payload":{}}';

  it("matches the specification's reference signature", () => {
    // The Standard Webhooks reference test vector (standard-webhooks/libraries, javascript tests).
    const sig = signPayload(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}');
    expect(sig).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("accepts a valid signature among several, refuses a tampered body, an old timestamp, missing headers", () => {
    const now = 1_800_000_000;
    const sig = signPayload(secret, "msg_1", now, body);
    const ok = headers({
      "webhook-id": "msg_1",
      "webhook-timestamp": String(now),
      "webhook-signature": `v1,bm9wZQ== ${sig}`,
    });
    expect(() => verifySignature({ secret, headers: ok, body, nowS: now + 10 })).not.toThrow();
    expect(() => verifySignature({ secret, headers: ok, body: body.replace("orders", "refunds"), nowS: now })).toThrow(
      /no signature matches/,
    );
    expect(() => verifySignature({ secret, headers: ok, body, nowS: now + 301 })).toThrow(/5 minutes/);
    expect(() => verifySignature({ secret, headers: ok, body, nowS: now - 301 })).toThrow(/5 minutes/);
    expect(() => verifySignature({ secret, headers: headers({ "webhook-id": "msg_1" }), body, nowS: now })).toThrow(
      /required/,
    );
    expect(() => verifySignature({ secret: newSigningSecret(), headers: ok, body, nowS: now })).toThrow(
      /no signature matches/,
    );
  });
});
