import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey } from "../support/factories";
import { getBalance } from "@/lib/billing";
import { startNextServer, type RunningServer } from "../support/next-server";
import { runCli } from "../support/run-cli";

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

async function redisReachable(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(6379, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });
}

/** Fires `n` GET /v1/me at once, alternating between the servers; returns the status counts. */
async function burst(servers: RunningServer[], key: string, n: number) {
  const responses = await Promise.all(
    Array.from({ length: n }, (_, i) => fetch(`${servers[i % servers.length]!.url}/v1/me`, { headers: auth(key) })),
  );
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return { counts, responses };
}

describe("two server processes sharing PostgreSQL", () => {
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    [a, b] = await Promise.all([startNextServer({ REDIS_URL: "" }), startNextServer({ REDIS_URL: "" })]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("share one rate limit per key: combined successes never exceed the limit", async () => {
    const co = await makeCompany(db);
    const { secret } = await makeKey(db, { companyId: co.id, rateLimitPerMinute: 10 });
    const { counts, responses } = await burst([a, b], secret, 30);
    expect(counts[200]).toBe(10);
    expect(counts[429]).toBe(20);
    const limited = responses.find((r) => r.status === 429)!;
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("x-ratelimit-limit-requests")).toBe("10");
    expect(limited.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(limited.headers.get("x-ratelimit-reset-requests")).toMatch(/^(\d+m)?\d+s$/);
    const body = await limited.json();
    expect(body.error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
    const ok = responses.find((r) => r.status === 200)!;
    expect(ok.headers.get("x-ratelimit-limit-requests")).toBe("10");
    expect(ok.headers.get("x-request-id")).toBeTruthy();
  });

  it("a high limit, taken from the store in grants, is never exceeded by both servers together", async () => {
    const co = await makeCompany(db);
    // 640/min: each process takes 10 calls at a time from the shared count.
    const { secret } = await makeKey(db, { companyId: co.id, rateLimitPerMinute: 640 });
    const { counts } = await burst([a, b], secret, 800);
    expect(counts[200]! + counts[429]!).toBe(800);
    expect(counts[200]).toBeLessThanOrEqual(640);
    // Only what sits unused in the other server's last grant can be lost: at most 9 calls.
    expect(counts[200]).toBeGreaterThanOrEqual(640 - 9);
  });

  it("ledger: 300 parallel 1 O₮ usage events over both servers on 100 O₮ → exactly 100 recorded", async () => {
    const co = await makeCompany(db, { creditsOt: 100 });
    const { secret } = await makeKey(db, { companyId: co.id, rateLimitPerMinute: 10_000 });
    const responses = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).url}/v1/usage`, {
          method: "POST",
          headers: { ...auth(secret), "content-type": "application/json" },
          body: JSON.stringify({ source: "voice_call", duration_s: 1 }),
        }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(100);
    expect(statuses.filter((s) => s === 402)).toHaveLength(200);
    expect((await getBalance(db, { companyId: co.id })).balanceMicro).toBe(0);
    const ledger = await (
      await fetch(`${a.url}/v1/usage?limit=100&source=voice_call`, { headers: auth(secret) })
    ).json();
    expect(ledger.balance_ot).toBe(0);
    expect(ledger.data).toHaveLength(100);
    expect(ledger.has_more).toBe(false);
  });

  it("completions on both servers draw from per-server credit leases: never below zero, every answer billed once, all credit back when idle", async () => {
    const co = await makeCompany(db, { creditsOt: 1 });
    const { secret } = await makeKey(db, { companyId: co.id });
    // Each call holds ~0.02 O₮ (50 output tokens at the local model's price) and costs less:
    // 1 O₮ cannot cover 240 of them at once, so some get 402 while others are answered.
    const body = JSON.stringify({
      model: "local-chat-latest",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 50,
    });
    const responses = await Promise.all(
      Array.from({ length: 240 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).url}/v1/chat/completions`, {
          method: "POST",
          headers: { ...auth(secret), "content-type": "application/json" },
          body,
        }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    const odd = responses.filter((r) => r.status !== 200 && r.status !== 402);
    expect(await Promise.all(odd.map(async (r) => `${r.status} ${await r.text()}`))).toEqual([]);
    const answered = statuses.filter((s) => s === 200).length;
    expect(answered).toBeGreaterThan(0);
    expect(statuses).toContain(402);

    // Leases are released once idle; then nothing is held and the balance is the grant minus the bills.
    const deadline = Date.now() + 8000;
    let balance = await getBalance(db, { companyId: co.id });
    while (balance.reservedMicro !== 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      balance = await getBalance(db, { companyId: co.id });
    }
    expect(balance.reservedMicro).toBe(0);
    const ledger = await (
      await fetch(`${a.url}/v1/usage?limit=100&source=completions`, { headers: auth(secret) })
    ).json();
    let rows = ledger.data as { amount_ot: number }[];
    let cursor = ledger.has_more ? ledger.data.at(-1).id : null;
    while (cursor) {
      const page = await (
        await fetch(`${a.url}/v1/usage?limit=100&source=completions&after=${cursor}`, { headers: auth(secret) })
      ).json();
      rows = rows.concat(page.data);
      cursor = page.has_more ? page.data.at(-1).id : null;
    }
    expect(rows).toHaveLength(answered);
    const spentMicro = Math.round(-rows.reduce((sum, r) => sum + r.amount_ot, 0) * 1_000_000);
    expect(balance.balanceMicro).toBe(1_000_000 - spentMicro);
    expect(balance.balanceMicro).toBeGreaterThanOrEqual(0);
  });

  it("a key revoked through one server (or the CLI) is refused by the other at once, JWTs included", async () => {
    const co = await makeCompany(db);
    const admin = (await makeKey(db, { companyId: co.id })).secret;
    const victim = await makeKey(db, { companyId: co.id });
    const tokenRes = await fetch(`${a.url}/v1/sdk/token`, { method: "POST", headers: auth(victim.secret) });
    const { token } = await tokenRes.json();
    // Warm both servers' caches.
    for (const s of [a, b]) {
      expect((await fetch(`${s.url}/v1/me`, { headers: auth(victim.secret) })).status).toBe(200);
      expect((await fetch(`${s.url}/v1/me`, { headers: auth(token) })).status).toBe(200);
    }
    const del = await fetch(`${b.url}/v1/sdk/keys/${victim.key.id}`, { method: "DELETE", headers: auth(admin) });
    expect(del.status).toBe(200);
    // Cross-process eviction travels by NOTIFY; allow it a moment, never a cache TTL.
    await new Promise((r) => setTimeout(r, 150));
    expect((await fetch(`${a.url}/v1/me`, { headers: auth(victim.secret) })).status).toBe(401);
    expect((await fetch(`${a.url}/v1/me`, { headers: auth(token) })).status).toBe(401);

    const second = await makeKey(db, { companyId: co.id });
    expect((await fetch(`${a.url}/v1/me`, { headers: auth(second.secret) })).status).toBe(200);
    const cli = runCli(["key", "revoke", "--id", second.key.id]);
    expect(cli.json).toEqual({ id: second.key.id, revoked: true });
    await new Promise((r) => setTimeout(r, 150));
    expect((await fetch(`${a.url}/v1/me`, { headers: auth(second.secret) })).status).toBe(401);
  });

  it("sends CORS headers on real responses and answers preflight", async () => {
    const pre = await fetch(`${a.url}/v1/chat/completions`, {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type",
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("two server processes sharing Redis", async () => {
  const reachable = await redisReachable();
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    if (!reachable) return;
    const REDIS_URL = "redis://127.0.0.1:6379";
    [a, b] = await Promise.all([startNextServer({ REDIS_URL }), startNextServer({ REDIS_URL })]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it.runIf(reachable)("share one rate limit per key through Redis", async () => {
    // Both count in Redis from their first call: one counting in PostgreSQL while it connects
    // would give the key its limit once per store.
    for (const server of [a, b]) {
      const ready = await (await fetch(`${server.url}/api/ready`)).json();
      expect(ready.redis).toBe("up");
    }
    const co = await makeCompany(db);
    const { secret } = await makeKey(db, { companyId: co.id, rateLimitPerMinute: 7 });
    const { counts } = await burst([a, b], secret, 25);
    expect(counts[200]).toBe(7);
    expect(counts[429]).toBe(18);
  });
});
