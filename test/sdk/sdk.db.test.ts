import { and, count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { crmDeals, crmDealStageChanges, sdkActionRuns, sdkInvoices } from "@/db/schema";
import * as actionRoute from "@/app/v1/sdk/action/route";
import * as viewRoute from "@/app/v1/sdk/view/[service]/[view]/route";
import * as viewsRoute from "@/app/v1/sdk/views/route";
import { updateDealStage } from "@/lib/sdk/services/crm/update-deal-stage";
import { createDeal } from "@/lib/sdk/services/crm/create-deal";
import { callRoute } from "../support/call-route";
import { makeCompany, makeKey } from "../support/factories";
import { withRollback } from "../support/with-rollback";

/**
 * The SDK services API in process (CONTRACT 5.3, 5.4, 8): views, actions, validation, idempotency,
 * scopes and tenancy; test/http/sdk.http.test.ts covers the same over real HTTP.
 */
async function tenant() {
  const company = await makeCompany(db);
  const key = await makeKey(db, { companyId: company.id, scopes: ["view", "action"] });
  return { companyId: company.id, key: key.secret, keyId: key.key.id };
}

const views = (key: string) => callRoute(viewsRoute.GET, { key, path: "/v1/sdk/views" });
const view = (key: string, service: string, name: string, query = "") =>
  callRoute(viewRoute.GET, { key, params: { service, view: name }, path: `/v1/sdk/view/${service}/${name}${query}` });
const act = (key: string, body: unknown) =>
  callRoute(actionRoute.POST, { method: "POST", key, body, path: "/v1/sdk/action" });
const createDealCall = (key: string, input: Record<string, unknown>, idempotency_key?: string) =>
  act(key, { service: "crm", action: "create_deal", input, ...(idempotency_key ? { idempotency_key } : {}) });
const invoiceInput = {
  customer: "ACME",
  line_items: [
    { description: "Consulting", quantity: 3, unit_price: "10.10" },
    { description: "Licence", quantity: 1, unit_price: "0.20" },
  ],
};

describe("GET /v1/sdk/views", () => {
  it("lists every service with its views and actions (CONTRACT 8)", async () => {
    const { key } = await tenant();
    const res = await views(key);
    expect(res.status).toBe(200);
    expect(res.json.object).toBe("list");
    expect(res.json.data.map((s: any) => s.service)).toEqual(["crm", "billing"]);
    const crm = res.json.data[0];
    expect(crm).toMatchObject({
      service: "crm",
      title: "CRM",
      views: [
        { name: "pipeline", title: "Pipeline" },
        { name: "deals", title: "Deals" },
      ],
    });
    expect(crm.actions.map((a: any) => a.name)).toEqual(["create_deal", "update_deal_stage"]);
    for (const a of crm.actions) expect(Object.keys(a)).toEqual(["name", "title", "input_schema"]);
    expect(res.json.data[1].actions.map((a: any) => a.name)).toEqual(["create_invoice", "mark_invoice_paid"]);
  });

  it("needs scope view (403 for a chat or action-only key)", async () => {
    const { companyId } = await tenant();
    for (const scopes of [["chat"], ["action"]] as const) {
      const k = await makeKey(db, { companyId, scopes: [...scopes] });
      const res = await views(k.secret);
      expect(res.status).toBe(403);
      expect(res.json.error.type).toBe("permission_error");
    }
  });
});

describe("GET /v1/sdk/view/{service}/{view}", () => {
  it("answers {service, view, version, definition, data, actions}; version is stable per definition", async () => {
    const { key } = await tenant();
    const res = await view(key, "crm", "pipeline");
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(["service", "view", "version", "definition", "data", "actions"]);
    expect(res.json).toMatchObject({ service: "crm", view: "pipeline", definition: { type: "page" } });
    expect(Number.isInteger(res.json.version) && res.json.version > 0).toBe(true);
    expect(res.json.actions.map((a: any) => a.name)).toEqual(["update_deal_stage", "create_deal"]);
    expect(res.json.actions[0].input_schema).toMatchObject({ type: "object", required: ["deal_id", "stage"] });
    expect(res.json.data.stages.map((s: any) => [s.id, s.count, s.total, s.deals])).toEqual(
      ["lead", "qualified", "proposal", "won", "lost"].map((s) => [s, 0, "0.00", []]),
    );
    expect(res.json.data.stats).toEqual({
      open_count: 0,
      open_value: "0.00",
      won_count: 0,
      won_value: "0.00",
      lost_value: "0.00",
    });
    expect((await view(key, "crm", "pipeline", "?sdui=1")).json.version).toBe(res.json.version);
    expect((await view(key, "crm", "deals")).json.version).not.toBe(res.json.version);
  });

  it("unknown service or view: 404; sdui other than 1: 400 naming sdui", async () => {
    const { key } = await tenant();
    for (const [s, v] of [
      ["nope", "pipeline"],
      ["crm", "nope"],
      ["billing", "pipeline"],
    ]) {
      const res = await view(key, s!, v!);
      expect(res.status).toBe(404);
      expect(res.json.error.type).toBe("not_found_error");
    }
    for (const q of ["?sdui=2", "?sdui=", "?sdui=1.0"]) {
      const res = await view(key, "crm", "deals", q);
      expect(res.status, q).toBe(400);
      expect(res.json.error.param).toBe("sdui");
    }
  });

  it("bad view parameters: 400 naming them", async () => {
    const { key } = await tenant();
    for (const [q, param] of [
      ["?limit=0", "limit"],
      ["?limit=101", "limit"],
      ["?limit=abc", "limit"],
      ["?stage=closed", "stage"],
      ["?after=deal_unknown", "after"],
    ]) {
      const res = await view(key, "crm", "deals", q);
      expect(res.status, q).toBe(400);
      expect(res.json.error).toMatchObject({ type: "invalid_request_error", param });
    }
    expect((await view(key, "billing", "invoices", "?status=void")).json.error.param).toBe("status");
    expect((await view(key, "billing", "invoices", "?currency=usd")).json.error.param).toBe("currency");
    expect((await view(key, "crm", "pipeline", "?currency=EURO")).json.error.param).toBe("currency");
  });

  it("needs scope view: an action-only key gets 403", async () => {
    const { companyId } = await tenant();
    const k = await makeKey(db, { companyId, scopes: ["action"] });
    expect((await view(k.secret, "crm", "pipeline")).status).toBe(403);
  });
});

describe("crm", () => {
  it("create_deal: 200 {ok, result, refresh}; the pipeline groups by stage with totals in the view's currency", async () => {
    const { key, keyId } = await tenant();
    const res = await createDealCall(key, { title: "Big one", contact: "Ada", amount: "1234.5" });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      ok: true,
      refresh: ["pipeline", "deals"],
      result: {
        id: expect.stringMatching(/^deal_/),
        object: "crm.deal",
        title: "Big one",
        contact: "Ada",
        amount: "1234.50",
        currency: "USD",
        stage: "lead",
        created_at: expect.any(Number),
        created_by: keyId,
        updated_at: expect.any(Number),
        stage_changed_at: null,
        stage_changed_by: null,
      },
    });
    await createDealCall(key, { title: "Small", amount: "0.10", stage: "qualified" });
    await createDealCall(key, { title: "Won", amount: "0.20", stage: "won" });
    await createDealCall(key, { title: "Euro", amount: "99", currency: "EUR", stage: "lead" });
    const p = (await view(key, "crm", "pipeline")).json.data;
    expect(p.currency).toBe("USD");
    expect(p.stats).toEqual({
      open_count: 3,
      open_value: "1234.60",
      won_count: 1,
      won_value: "0.20",
      lost_value: "0.00",
    });
    expect(p.stages[0]).toMatchObject({
      id: "lead",
      title: "Lead",
      count: 2,
      total: "1234.50",
      total_text: "1234.50 USD",
    });
    expect(p.stages[0].deals.map((d: any) => d.title)).toEqual(["Euro", "Big one"]);
    expect(p.stages[1].deals.map((d: any) => d.title)).toEqual(["Small"]);
    const eur = (await view(key, "crm", "pipeline", "?currency=EUR")).json.data;
    expect(eur.stats.open_value).toBe("99.00");
  });

  it("pipeline cards: the newest 25 of a stage; count and total still cover every deal", async () => {
    const { key, companyId, keyId } = await tenant();
    for (let i = 0; i < 27; i++) {
      await createDeal(db, {
        companyId,
        actor: keyId,
        input: { title: `N${i}`, contact: "", amount: "1.01", currency: "USD", stage: "proposal" },
      });
    }
    const proposal = (await view(key, "crm", "pipeline")).json.data.stages[2];
    expect(proposal).toMatchObject({ id: "proposal", count: 27, total: "27.27" });
    expect(proposal.deals).toHaveLength(25);
    expect(proposal.deals[0].title).toBe("N26");
    expect(proposal.deals[24].title).toBe("N2");
  });

  it("update_deal_stage records who and when, keeps a history row; the same stage is a 200 no-op", async () => {
    const { key, keyId, companyId } = await tenant();
    const deal = (await createDealCall(key, { title: "Move me", amount: "5" })).json.result;
    const moved = await act(key, {
      service: "crm",
      action: "update_deal_stage",
      input: { deal_id: deal.id, stage: "proposal" },
    });
    expect(moved.status).toBe(200);
    expect(moved.json.refresh).toEqual(["pipeline", "deals"]);
    expect(moved.json.result).toMatchObject({ id: deal.id, stage: "proposal", stage_changed_by: keyId, changed: true });
    expect(moved.json.result.stage_changed_at).toBeGreaterThanOrEqual(deal.created_at);
    const again = await act(key, {
      service: "crm",
      action: "update_deal_stage",
      input: { deal_id: deal.id, stage: "proposal" },
    });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ ok: true, refresh: [], result: { stage: "proposal", changed: false } });
    await act(key, { service: "crm", action: "update_deal_stage", input: { deal_id: deal.id, stage: "won" } });
    const history = await db
      .select()
      .from(crmDealStageChanges)
      .where(eq(crmDealStageChanges.dealId, deal.id))
      .orderBy(crmDealStageChanges.changedAt);
    expect(history.map((h) => [h.fromStage, h.toStage, h.changedBy, h.companyId])).toEqual([
      ["lead", "proposal", keyId, companyId],
      ["proposal", "won", keyId, companyId],
    ]);
  });

  it("deals view: paginated (limit, after, next), filterable by stage, newest first", async () => {
    const { key } = await tenant();
    for (let i = 0; i < 5; i++)
      await createDealCall(key, { title: `D${i}`, amount: "1", stage: i % 2 ? "won" : "lead" });
    const p1 = (await view(key, "crm", "deals", "?limit=2")).json.data;
    expect(p1.deals.map((d: any) => d.title)).toEqual(["D4", "D3"]);
    expect(p1.next).toBe(p1.deals[1].id);
    const p2 = (await view(key, "crm", "deals", `?limit=2&after=${p1.next}`)).json.data;
    expect(p2.deals.map((d: any) => d.title)).toEqual(["D2", "D1"]);
    const p3 = (await view(key, "crm", "deals", `?limit=2&after=${p2.next}`)).json.data;
    expect(p3.deals.map((d: any) => d.title)).toEqual(["D0"]);
    expect(p3.next).toBeNull();
    const won = (await view(key, "crm", "deals", "?stage=won")).json.data;
    expect(won).toMatchObject({ stage: "won", next: null });
    expect(won.deals.map((d: any) => d.title)).toEqual(["D3", "D1"]);
    expect((await view(key, "crm", "deals", "?stage=")).json.data.deals).toHaveLength(5);
  });

  it("another company's deals: invisible in views, 404 in actions (and left unchanged)", async () => {
    const a = await tenant();
    const b = await tenant();
    const deal = (await createDealCall(a.key, { title: "A's", amount: "7" })).json.result;
    expect((await view(b.key, "crm", "deals")).json.data.deals).toEqual([]);
    expect((await view(b.key, "crm", "pipeline")).json.data.stats.open_count).toBe(0);
    expect((await view(b.key, "crm", "deals", `?after=${deal.id}`)).status).toBe(400);
    const res = await act(b.key, {
      service: "crm",
      action: "update_deal_stage",
      input: { deal_id: deal.id, stage: "lost" },
    });
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ type: "not_found_error", param: "input.deal_id" });
    const [row] = await db.select().from(crmDeals).where(eq(crmDeals.id, deal.id));
    expect(row!.stage).toBe("lead");
  });
});

describe("billing", () => {
  it("create_invoice computes line amounts and the total exactly", async () => {
    const { key, keyId } = await tenant();
    const res = await act(key, { service: "billing", action: "create_invoice", input: invoiceInput });
    expect(res.status).toBe(200);
    expect(res.json.refresh).toEqual(["invoices"]);
    expect(res.json.result).toMatchObject({
      object: "billing.invoice",
      customer: "ACME",
      currency: "USD",
      total: "30.50",
      status: "open",
      created_by: keyId,
      paid_at: null,
      line_items: [
        { description: "Consulting", quantity: 3, unit_price: "10.10", amount: "30.30" },
        { description: "Licence", quantity: 1, unit_price: "0.20", amount: "0.20" },
      ],
    });
    const [row] = await db.select().from(sdkInvoices).where(eq(sdkInvoices.id, res.json.result.id));
    expect(row!.totalMinor).toBe(3050);
  });

  it("invalid input: 400 naming the field; nothing is created", async () => {
    const { key, companyId } = await tenant();
    const cases: [unknown, string][] = [
      [
        { ...invoiceInput, line_items: [{ description: "x", quantity: 0, unit_price: "1" }] },
        "input.line_items.0.quantity",
      ],
      [{ ...invoiceInput, total: "1.00" }, "input.total"],
      [{ line_items: invoiceInput.line_items }, "input.customer"],
      [{ ...invoiceInput, currency: "dollars" }, "input.currency"],
      [
        { ...invoiceInput, line_items: [{ description: "x", quantity: 1, unit_price: 1.5 }] },
        "input.line_items.0.unit_price",
      ],
    ];
    for (const [input, param] of cases) {
      const res = await act(key, { service: "billing", action: "create_invoice", input });
      expect(res.status, param).toBe(400);
      expect(res.json.error).toMatchObject({ type: "invalid_request_error", param });
      expect(res.json.error.message).toContain(param);
    }
    expect((await act(key, { service: "billing", action: "create_invoice", input: "x" })).json.error.param).toBe(
      "input",
    );
    expect((await act(key, { service: "billing", input: {} })).json.error.param).toBe("action");
    expect(
      (await act(key, { service: "billing", action: "create_invoice", input: invoiceInput, extra: 1 })).json.error
        .param,
    ).toBe("extra");
    const [n] = await db.select({ n: count() }).from(sdkInvoices).where(eq(sdkInvoices.companyId, companyId));
    expect(n!.n).toBe(0);
  });

  it("mark_invoice_paid: paid once, 409 the second time; another company's invoice 404; status filter and totals", async () => {
    const a = await tenant();
    const b = await tenant();
    const inv = (await act(a.key, { service: "billing", action: "create_invoice", input: invoiceInput })).json.result;
    await act(a.key, { service: "billing", action: "create_invoice", input: { ...invoiceInput, customer: "Other" } });
    const other = await act(b.key, { service: "billing", action: "mark_invoice_paid", input: { invoice_id: inv.id } });
    expect(other.status).toBe(404);
    expect(other.json.error.param).toBe("input.invoice_id");
    const paid = await act(a.key, { service: "billing", action: "mark_invoice_paid", input: { invoice_id: inv.id } });
    expect(paid.status).toBe(200);
    expect(paid.json.result).toMatchObject({
      id: inv.id,
      status: "paid",
      paid_by: a.keyId,
      paid_at: expect.any(Number),
    });
    const twice = await act(a.key, { service: "billing", action: "mark_invoice_paid", input: { invoice_id: inv.id } });
    expect(twice.status).toBe(409);
    expect(twice.json.error).toMatchObject({ type: "conflict_error", code: "invoice_already_paid" });
    const v = (await view(a.key, "billing", "invoices")).json.data;
    expect(v.stats).toEqual({ open_count: 1, open_total: "30.50", paid_count: 1, paid_total: "30.50" });
    expect(v.invoices.map((i: any) => i.customer)).toEqual(["Other", "ACME"]);
    expect((await view(a.key, "billing", "invoices", "?status=paid")).json.data.invoices.map((i: any) => i.id)).toEqual(
      [inv.id],
    );
    expect((await view(b.key, "billing", "invoices")).json.data).toMatchObject({
      invoices: [],
      stats: { open_count: 0, paid_count: 0 },
    });
  });
});

describe("POST /v1/sdk/action: rules", () => {
  it("unknown service or action: 404", async () => {
    const { key } = await tenant();
    for (const body of [
      { service: "nope", action: "create_deal", input: {} },
      { service: "crm", action: "create_invoice", input: {} },
      { service: "crm", action: "nope", input: {} },
    ]) {
      const res = await act(key, body);
      expect(res.status).toBe(404);
      expect(res.json.error.type).toBe("not_found_error");
    }
  });

  it("needs scope action: a view-only key gets 403 and nothing is created", async () => {
    const { companyId } = await tenant();
    const viewOnly = await makeKey(db, { companyId, scopes: ["view"] });
    const res = await createDealCall(viewOnly.secret, { title: "No", amount: "1" });
    expect(res.status).toBe(403);
    expect(res.json.error.type).toBe("permission_error");
    const [n] = await db.select({ n: count() }).from(crmDeals).where(eq(crmDeals.companyId, companyId));
    expect(n!.n).toBe(0);
  });

  it("idempotency_key: a repeat answers the first result without acting; other input with the key: 409", async () => {
    const { key, companyId } = await tenant();
    const first = await createDealCall(key, { title: "Once", amount: "1" }, "k-1");
    const again = await createDealCall(key, { title: "Once", amount: "1" }, "k-1");
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const reused = await createDealCall(key, { title: "Twice", amount: "1" }, "k-1");
    expect(reused.status).toBe(409);
    expect(reused.json.error).toMatchObject({ code: "idempotency_key_reused", param: "idempotency_key" });
    const [n] = await db.select({ n: count() }).from(crmDeals).where(eq(crmDeals.companyId, companyId));
    expect(n!.n).toBe(1);
    // Another company may use the same key.
    const other = await tenant();
    expect((await createDealCall(other.key, { title: "Once", amount: "1" }, "k-1")).json.result.id).not.toBe(
      first.json.result.id,
    );
  });

  it("idempotency_key: 12 concurrent repeats act once and all answer the one result", async () => {
    const { key, companyId } = await tenant();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => createDealCall(key, { title: "Race", amount: "3" }, "race-1")),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(new Set(results.map((r) => r.json.result.id)).size).toBe(1);
    const [n] = await db.select({ n: count() }).from(crmDeals).where(eq(crmDeals.companyId, companyId));
    expect(n!.n).toBe(1);
    const runs = await db
      .select()
      .from(sdkActionRuns)
      .where(and(eq(sdkActionRuns.companyId, companyId), eq(sdkActionRuns.idempotencyKey, "race-1")));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ service: "crm", action: "create_deal", status: "completed" });
  });

  it("a failed action leaves no claim: the key can be retried once the input is fixed", async () => {
    const { key, companyId } = await tenant();
    const inv = (await act(key, { service: "billing", action: "create_invoice", input: invoiceInput })).json.result;
    await act(key, { service: "billing", action: "mark_invoice_paid", input: { invoice_id: inv.id } });
    const conflict = await act(key, {
      service: "billing",
      action: "mark_invoice_paid",
      input: { invoice_id: inv.id },
      idempotency_key: "pay-1",
    });
    expect(conflict.status).toBe(409);
    const runs = await db.select().from(sdkActionRuns).where(eq(sdkActionRuns.companyId, companyId));
    expect(runs).toEqual([]);
  });
});

describe("crm verbs in a transaction", () => {
  it("concurrent-safe move: the stage left is the one locked, history ordered", async () => {
    await withRollback(async (tx) => {
      const company = await makeCompany(tx);
      const deal = await createDeal(tx, {
        companyId: company.id,
        actor: "key_x",
        input: { title: "T", contact: "", amount: "1", currency: "USD", stage: "lead" },
      });
      const first = await updateDealStage(tx, {
        companyId: company.id,
        actor: "key_y",
        input: { deal_id: deal.id, stage: "qualified" },
      });
      expect(first).toMatchObject({ changed: true, deal: { stage: "qualified", stageChangedBy: "key_y" } });
      await expect(
        updateDealStage(tx, { companyId: "co_other", actor: "key_y", input: { deal_id: deal.id, stage: "won" } }),
      ).rejects.toMatchObject({ code: "not_found" });
    });
  });
});
