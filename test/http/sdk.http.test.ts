import { randomBytes } from "node:crypto";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { crmDeals } from "@/db/schema";
import { makeCompany, makeKey } from "../support/factories";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * The SDK services endpoints over real HTTP against the production build, two server processes
 * (WEB_CONCURRENCY=2) so concurrent repeats of one idempotency_key race across processes; CORS
 * preflight as the widget's browser sends it; short-lived tokens narrowed to one scope.
 */
let server: RunningServer;

beforeAll(async () => {
  server = await startNextServer({
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    LOG_LEVEL: "error",
    WEB_CONCURRENCY: "2",
  });
});

afterAll(async () => {
  await server?.stop();
});

async function tenant() {
  const company = await makeCompany(db);
  const key = await makeKey(db, { companyId: company.id, scopes: ["view", "action"] });
  return { companyId: company.id, key: key.secret, keyId: key.key.id };
}

async function call(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

const act = (key: string, body: unknown) => call(key, "POST", "/v1/sdk/action", body);
const invoice = { customer: "ACME", line_items: [{ description: "Hours", quantity: 4, unit_price: "12.25" }] };

describe("SDK endpoints over HTTP", () => {
  it("CORS: preflight from any origin for the three routes; responses allow any origin", async () => {
    for (const [path, method] of [
      ["/v1/sdk/views", "GET"],
      ["/v1/sdk/view/crm/pipeline", "GET"],
      ["/v1/sdk/action", "POST"],
    ]) {
      const pre = await fetch(`${server.url}${path}`, {
        method: "OPTIONS",
        headers: {
          origin: "https://shop.example",
          "access-control-request-method": method!,
          "access-control-request-headers": "authorization, content-type",
        },
      });
      expect(pre.status, path).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe("*");
      expect(pre.headers.get("access-control-allow-methods")).toContain(method);
      expect(pre.headers.get("access-control-allow-headers")).toMatch(/authorization/i);
    }
    const { key } = await tenant();
    const res = await call(key, "GET", "/v1/sdk/view/crm/pipeline?sdui=1", undefined, {
      origin: "https://shop.example",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("a view-only token reads views and is refused on actions (403); an action token acts as its key", async () => {
    const { key, keyId, companyId } = await tenant();
    const viewToken = (await call(key, "POST", "/v1/sdk/token", { scopes: ["view"] })).json.token as string;
    expect((await call(viewToken, "GET", "/v1/sdk/views")).status).toBe(200);
    expect((await call(viewToken, "GET", "/v1/sdk/view/crm/deals")).status).toBe(200);
    const refused = await act(viewToken, {
      service: "crm",
      action: "create_deal",
      input: { title: "No", amount: "1" },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error.type).toBe("permission_error");
    const [n] = await db.select({ n: count() }).from(crmDeals).where(eq(crmDeals.companyId, companyId));
    expect(n!.n).toBe(0);

    const actionToken = (await call(key, "POST", "/v1/sdk/token", { scopes: ["action"] })).json.token as string;
    expect((await call(actionToken, "GET", "/v1/sdk/view/crm/deals")).status).toBe(403);
    const made = await act(actionToken, {
      service: "crm",
      action: "create_deal",
      input: { title: "Yes", amount: "1" },
    });
    expect(made.status).toBe(200);
    expect(made.json.result.created_by).toBe(keyId);
  });

  it("30 concurrent repeats of one idempotency_key across two processes act once", async () => {
    const { key, companyId } = await tenant();
    const body = {
      service: "crm",
      action: "create_deal",
      input: { title: "Race", amount: "9.99" },
      idempotency_key: `race-${randomBytes(4).toString("hex")}`,
    };
    const results = await Promise.all(Array.from({ length: 30 }, () => act(key, body)));
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(new Set(results.map((r) => r.json.result.id)).size).toBe(1);
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    // A widget on another origin may read it.
    expect(results[0]!.headers.get("access-control-expose-headers")).toContain("idempotent-replayed");
    const [n] = await db.select({ n: count() }).from(crmDeals).where(eq(crmDeals.companyId, companyId));
    expect(n!.n).toBe(1);
  });

  it("tenancy and rules: another company's invoice 404, paid twice 409, invalid input names the field, unknown names 404", async () => {
    const a = await tenant();
    const b = await tenant();
    const created = await act(a.key, { service: "billing", action: "create_invoice", input: invoice });
    expect(created.status).toBe(200);
    expect(created.json.result.total).toBe("49.00");
    const id = created.json.result.id;
    expect(
      (await act(b.key, { service: "billing", action: "mark_invoice_paid", input: { invoice_id: id } })).status,
    ).toBe(404);
    expect((await call(b.key, "GET", "/v1/sdk/view/billing/invoices")).json.data.invoices).toEqual([]);
    expect(
      (await act(a.key, { service: "billing", action: "mark_invoice_paid", input: { invoice_id: id } })).status,
    ).toBe(200);
    const twice = await act(a.key, { service: "billing", action: "mark_invoice_paid", input: { invoice_id: id } });
    expect(twice.status).toBe(409);
    expect(twice.json.error.type).toBe("conflict_error");
    const bad = await act(a.key, {
      service: "billing",
      action: "create_invoice",
      input: { ...invoice, line_items: [{ ...invoice.line_items[0], quantity: -1 }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ type: "invalid_request_error", param: "input.line_items.0.quantity" });
    expect((await call(a.key, "GET", "/v1/sdk/view/crm/nope")).status).toBe(404);
    expect((await call(a.key, "GET", "/v1/sdk/view/nope/deals")).status).toBe(404);
    expect((await act(a.key, { service: "billing", action: "nope", input: {} })).status).toBe(404);
    expect((await call(a.key, "GET", "/v1/sdk/view/billing/invoices?sdui=2")).json.error.param).toBe("sdui");
  });
});
