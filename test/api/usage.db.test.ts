import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey } from "../support/factories";
import * as usage from "@/app/v1/usage/route";
import { callRoute } from "../support/call-route";

describe("POST/GET /v1/usage", () => {
  let key: string;
  let companyId: string;

  beforeAll(async () => {
    const co = await makeCompany(db, { creditsOt: 100 });
    companyId = co.id;
    key = (await makeKey(db, { companyId })).secret;
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    callRoute(usage.POST, { method: "POST", key, body, headers, path: "/v1/usage" });

  it("bills voice_call at 1 O₮/s and whisper at 0.1 O₮/s, decimals allowed", async () => {
    const voice = await post({
      source: "voice_call",
      duration_s: 12.5,
      direction: "outbound",
      metadata: { call: "c1" },
    });
    expect(voice.status).toBe(201);
    expect(voice.json).toMatchObject({
      source: "voice_call",
      duration_s: 12.5,
      direction: "outbound",
      cost_ot: 12.5,
      balance_ot: 87.5,
    });
    expect(voice.json.id).toMatch(/^use_/);
    expect(typeof voice.json.created_at).toBe("number");
    const whisper = await post({ source: "whisper", duration_s: 3.3 });
    expect(whisper.status).toBe(201);
    expect(whisper.json).toMatchObject({ cost_ot: 0.33, balance_ot: 87.17, direction: "inbound" });
  });

  it("the caller's metadata cannot overwrite the ledger entry's own fields; it is kept under caller_metadata", async () => {
    const forged = { duration_s: 0, direction: "inbound", cost_micro_unbilled: 0, call: "c2" };
    const res = await post({ source: "voice_call", duration_s: 2, direction: "outbound", metadata: forged });
    expect(res.status).toBe(201);
    expect(res.json.metadata).toEqual(forged);
    const list = await callRoute(usage.GET, { key, path: "/v1/usage?limit=100" });
    const entry = list.json.data.find((e: { reference_id: string }) => e.reference_id === res.json.id);
    expect(entry.amount_ot).toBe(-2);
    expect(entry.metadata).toEqual({ duration_s: 2, direction: "outbound", caller_metadata: forged });
  });

  it.each([
    [{ source: "fax", duration_s: 1 }, "source"],
    [{ source: "whisper", duration_s: -1 }, "duration_s"],
    [{ source: "whisper", duration_s: 1e9 }, "duration_s"],
    [{ source: "whisper", duration_s: "10" }, "duration_s"],
    [{ source: "whisper", duration_s: 1, direction: "sideways" }, "direction"],
    [{ source: "whisper", duration_s: 1, cost: 0 }, "cost"],
    [{ source: "whisper", duration_s: 1, metadata: [] }, "metadata"],
    [{ duration_s: 1 }, "source"],
  ])("400 with param for %j", async (body, param) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: "invalid_request_error", param });
  });

  it("400 for malformed JSON and non-object bodies; 413 for oversized bodies", async () => {
    const bad = await callRoute(usage.POST, {
      method: "POST",
      key,
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("invalid_json");
    const arr = await callRoute(usage.POST, { method: "POST", key, rawBody: "[1,2]" });
    expect(arr.status).toBe(400);
    const huge = await post({ source: "whisper", duration_s: 1, metadata: { blob: "x".repeat(2 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(huge.json.error).toMatchObject({ type: "invalid_request_error", code: "payload_too_large" });
  });

  it("402 when the balance cannot cover the event, and nothing is recorded", async () => {
    const poor = await makeCompany(db, { creditsOt: 1 });
    const poorKey = (await makeKey(db, { companyId: poor.id })).secret;
    const res = await callRoute(usage.POST, {
      method: "POST",
      key: poorKey,
      body: { source: "voice_call", duration_s: 2 },
    });
    expect(res.status).toBe(402);
    expect(res.json.error.type).toBe("insufficient_balance");
    const list = await callRoute(usage.GET, { key: poorKey, path: "/v1/usage" });
    expect(list.json.balance_ot).toBe(1);
    expect(list.json.data.filter((e: { kind: string }) => e.kind === "usage")).toHaveLength(0);
  });

  it("Idempotency-Key: a retry records once; the same key with another body is 409", async () => {
    const body = { source: "voice_call", duration_s: 2, metadata: { a: 1, b: 2 } };
    const first = await post(body, { "idempotency-key": "evt-1" });
    const retry = await post(
      { metadata: { b: 2, a: 1 }, duration_s: 2, source: "voice_call" },
      { "idempotency-key": "evt-1" },
    );
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.json).toEqual(first.json);
    const conflict = await post({ ...body, duration_s: 3 }, { "idempotency-key": "evt-1" });
    expect(conflict.status).toBe(409);
    expect(conflict.json.error.type).toBe("conflict_error");
    const list = await callRoute(usage.GET, { key, path: "/v1/usage?limit=100" });
    expect(list.json.data.filter((e: { reference_id: string }) => e.reference_id === first.json.id)).toHaveLength(1);
  });

  it("concurrent retries with one Idempotency-Key record and charge exactly once", async () => {
    const co = await makeCompany(db, { creditsOt: 10 });
    const k = (await makeKey(db, { companyId: co.id })).secret;
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        callRoute(usage.POST, {
          method: "POST",
          key: k,
          body: { source: "voice_call", duration_s: 1 },
          headers: { "idempotency-key": "same" },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.json.id)).size).toBe(1);
    const list = await callRoute(usage.GET, { key: k, path: "/v1/usage" });
    expect(list.json.balance_ot).toBe(9);
  });

  it("GET lists ledger entries newest first, filters by source, paginates", async () => {
    const res = await callRoute(usage.GET, { key, path: "/v1/usage?limit=2" });
    expect(res.status).toBe(200);
    expect(res.json.object).toBe("list");
    expect(typeof res.json.balance_ot).toBe("number");
    expect(res.json.data).toHaveLength(2);
    const [a, b] = res.json.data;
    expect(a.created_at).toBeGreaterThanOrEqual(b.created_at);
    expect(a).toMatchObject({ object: "ledger.entry" });
    expect(Object.keys(a).sort()).toEqual(
      [
        "amount_ot",
        "balance_after_ot",
        "completion_tokens",
        "created_at",
        "id",
        "kind",
        "metadata",
        "model",
        "object",
        "prompt_tokens",
        "reference_id",
        "source",
      ].sort(),
    );
    const whisper = await callRoute(usage.GET, { key, path: "/v1/usage?source=whisper" });
    expect(whisper.json.data.length).toBeGreaterThan(0);
    expect(whisper.json.data.every((e: { source: string }) => e.source === "whisper")).toBe(true);
    const all = await callRoute(usage.GET, { key, path: "/v1/usage?limit=100&order=asc" });
    expect(all.json.data[0].kind).toBe("grant");
    // Every row's balance_after is the running sum of amounts (micro-precision).
    let running = 0;
    for (const e of all.json.data) {
      running = Math.round((running + e.amount_ot) * 1e6) / 1e6;
      expect(e.balance_after_ot).toBeCloseTo(running, 6);
    }
    expect(running).toBeCloseTo(all.json.balance_ot, 6);
    expect((await callRoute(usage.GET, { key, path: "/v1/usage?limit=0" })).status).toBe(400);
    expect((await callRoute(usage.GET, { key, path: "/v1/usage?after=le_nope" })).status).toBe(400);
    expect(companyId).toMatch(/^co_/);
  });

  it("403 without the chat scope", async () => {
    const viewOnly = (await makeKey(db, { companyId, scopes: ["view"] })).secret;
    expect(
      (await callRoute(usage.POST, { method: "POST", key: viewOnly, body: { source: "whisper", duration_s: 1 } }))
        .status,
    ).toBe(403);
  });
});
