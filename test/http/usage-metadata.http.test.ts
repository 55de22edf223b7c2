import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey } from "../support/factories";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * The metadata a caller sends with a usage event cannot overwrite the ledger entry's own fields; it
 * stays visible under `caller_metadata`. Over real HTTP.
 */
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

async function call(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

describe("POST /v1/usage metadata", () => {
  it("cannot forge the ledger entry's own fields; GET /v1/usage shows the true values and the caller's metadata apart", async () => {
    const company = await makeCompany(db, { creditsOt: 100 });
    const { secret } = await makeKey(db, { companyId: company.id, scopes: ["chat"] });
    const forged = {
      duration_s: 0,
      direction: "inbound",
      cost_micro_unbilled: 0,
      cost_micro_requested: 0,
      caller_metadata: { nested: "decoy" },
      call_id: "c-42",
    };
    const posted = await call(secret, "POST", "/v1/usage", {
      source: "voice_call",
      duration_s: 2,
      direction: "outbound",
      metadata: forged,
    });
    expect(posted.status, JSON.stringify(posted.json)).toBe(201);
    expect(posted.json).toMatchObject({
      source: "voice_call",
      duration_s: 2,
      direction: "outbound",
      cost_ot: 2,
      balance_ot: 98,
    });

    const list = await call(secret, "GET", "/v1/usage?limit=100");
    expect(list.status).toBe(200);
    const entry = list.json.data.find((e: { reference_id: string | null }) => e.reference_id === posted.json.id);
    expect(entry).toMatchObject({ kind: "usage", source: "voice_call", amount_ot: -2, balance_after_ot: 98 });
    expect(entry.metadata).toEqual({ duration_s: 2, direction: "outbound", caller_metadata: forged });
    expect(list.json.balance_ot).toBe(98);
  });

  it("a forged shortfall note never reaches the entry's own fields", async () => {
    const company = await makeCompany(db, { creditsOt: 10 });
    const { secret } = await makeKey(db, { companyId: company.id, scopes: ["chat"] });
    const posted = await call(secret, "POST", "/v1/usage", {
      source: "whisper",
      duration_s: 10,
      metadata: { cost_micro_requested: 1_000_000, cost_micro_unbilled: 1_000_000 },
    });
    expect(posted.status).toBe(201);
    const list = await call(secret, "GET", "/v1/usage?source=whisper");
    const [entry] = list.json.data;
    expect(entry.amount_ot).toBe(-1);
    expect(entry.metadata).not.toHaveProperty("cost_micro_unbilled");
    expect(entry.metadata).not.toHaveProperty("cost_micro_requested");
    expect(entry.metadata.caller_metadata).toEqual({ cost_micro_requested: 1_000_000, cost_micro_unbilled: 1_000_000 });
  });
});
