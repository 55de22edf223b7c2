import type { Page, Route } from "@playwright/test";
import { expect, test } from "./fixtures";
import { WidgetHostPage } from "./pages/widget-host-page";
import { HOSTILE_CSS, hostHtml, startHostSite, type HostSite } from "./support/host-site";
import { invoicesFixture, pipelineFixture } from "./support/sdui-fixtures";

/**
 * The renderer against definitions written from widget/VOCABULARY.md: the real script from the
 * gateway, on a page of another origin, with the SDK calls answered by the test (so every node
 * type, a malformed node and each error path can be shown). widget.spec.ts runs the real services.
 */
const KEY = `sk-cp-${"a".repeat(40)}`;
let site: HostSite;

test.beforeAll(async ({ baseURL }) => {
  site = await startHostSite(baseURL!);
});
test.afterAll(async () => {
  await site.close();
});

interface Calls {
  token: number;
  views: URL[];
  actions: Record<string, unknown>[];
}

/** Answers the widget's SDK calls; `action` decides each action's answer. */
async function fakeGateway(
  page: Page,
  views: (url: URL) => unknown,
  action: (body: Record<string, unknown>) => { status: number; body: unknown },
): Promise<Calls> {
  const calls: Calls = { token: 0, views: [], actions: [] };
  const json = (route: Route, status: number, body: unknown) =>
    route.fulfill({
      status,
      contentType: "application/json",
      headers: { "access-control-allow-origin": "*" },
      body: JSON.stringify(body),
    });
  await page.route("**/v1/sdk/token", (route) => {
    calls.token++;
    expect(route.request().headers().authorization).toBe(`Bearer ${KEY}`);
    return json(route, 200, {
      token: "h.e.s",
      token_type: "Bearer",
      expires_in: 300,
      expires_at: 0,
      scopes: ["view", "action"],
      company_id: "c",
    });
  });
  await page.route("**/v1/sdk/view/**", (route) => {
    const url = new URL(route.request().url());
    calls.views.push(url);
    return json(route, 200, views(url));
  });
  await page.route("**/v1/sdk/action", (route) => {
    if (route.request().method() === "OPTIONS")
      return route.fulfill({
        status: 204,
        headers: {
          "access-control-allow-origin": "*",
          "access-control-allow-headers": "*",
          "access-control-allow-methods": "POST",
        },
      });
    const body = route.request().postDataJSON() as Record<string, unknown>;
    calls.actions.push(body);
    const res = action(body);
    return json(route, res.status, res.body);
  });
  return calls;
}

function widgetPage(path: string, gateway: string, attrs: Record<string, string>, css?: string) {
  return site.page(path, hostHtml({ gateway, attrs: { gateway, "auth-token": KEY, ...attrs }, css }));
}

test("renders every node of the vocabulary; an unknown or malformed node is a placeholder", async ({
  page,
  baseURL,
}) => {
  const deals = [{ id: "deal_1", title: "Acme rollout", amount: "1200.50", stage: "lead" }];
  const calls = await fakeGateway(
    page,
    () => pipelineFixture(deals),
    () => ({ status: 500, body: {} }),
  );
  const host = new WidgetHostPage(page);
  await host.goto(widgetPage("/all-nodes", baseURL!, { service: "crm", view: "pipeline" }), "Pipeline");

  expect(calls.token).toBe(1);
  expect(calls.views[0]!.pathname).toBe("/v1/sdk/view/crm/pipeline");
  expect(calls.views[0]!.searchParams.get("sdui")).toBe("1");
  await expect(host.widget.locator('[part~="stat"]').first()).toContainText("Open deals1");
  await expect(host.widget.locator('[part~="stat-value"]').nth(1)).toContainText("1,500.00");
  await expect(host.widget.locator('[part~="badge"]').first()).toHaveAttribute("data-tone", "success");
  await expect(host.widget.getByText("$ literal")).toBeVisible();
  await expect(host.widget.locator('[part~="unknown"]')).toHaveCount(2);
  await expect(host.widget.locator('[part~="unknown"][data-type="sparkline"]')).toBeVisible();
  await expect(host.column("Lead")).toContainText("Acme rollout");
  await expect(host.column("Lead")).toContainText("Deals1");
  await expect(host.card("Acme rollout")).toContainText("€1,200.50");
  await expect(host.widget.getByText("No invoices yet")).toBeVisible();
  await expect(host.widget.getByText("That is all")).toBeVisible();
  const form = host.form("create_deal");
  await expect(form.getByLabel("Stage *")).toHaveValue("lead");
  await expect(form.getByLabel("Close date")).toHaveAttribute("type", "date");
  await expect(form.getByLabel("Hot lead")).toHaveAttribute("type", "checkbox");
  expect(await host.events("cockpit-render")).toEqual([
    { type: "cockpit-render", detail: { service: "crm", view: "pipeline", version: 7 } },
  ]);
});

test("a form is checked against the schema before sending; the server's errors go next to the field; refresh re-renders", async ({
  page,
  baseURL,
}) => {
  const deals = [{ id: "deal_1", title: "Acme rollout", amount: "1200.50", stage: "lead" }];
  const calls = await fakeGateway(
    page,
    () => pipelineFixture(deals),
    (body) => {
      const input = body.input as Record<string, string>;
      if (body.action === "create_deal" && input.title === "Taken") {
        return {
          status: 400,
          body: {
            error: {
              message: "A deal with this title exists",
              type: "invalid_request_error",
              code: "duplicate",
              param: "input.title",
            },
          },
        };
      }
      if (body.action === "create_deal")
        deals.push({ id: `deal_${deals.length + 1}`, title: input.title!, amount: input.amount!, stage: input.stage! });
      if (body.action === "update_deal_stage") deals.find((d) => d.id === input.deal_id)!.stage = input.stage!;
      return { status: 200, body: { ok: true, result: { id: "deal_x" }, refresh: ["pipeline", "deals"] } };
    },
  );
  const host = new WidgetHostPage(page);
  await host.goto(widgetPage("/form", baseURL!, { service: "crm", view: "pipeline" }), "Pipeline");
  const form = host.form("create_deal");

  await form.getByLabel("Amount *").fill("12.345");
  await form.getByRole("button", { name: "Create deal" }).click();
  await expect(host.fieldError(form, "title")).toHaveText("Required");
  await expect(host.fieldError(form, "amount")).toHaveText("Has the wrong format");
  await expect(form.getByLabel("Title *")).toHaveAttribute("aria-invalid", "true");
  expect(calls.actions).toHaveLength(0);

  await form.getByLabel("Title *").fill("Taken");
  await form.getByLabel("Amount *").fill("10");
  await form.getByRole("button", { name: "Create deal" }).click();
  await expect(host.fieldError(form, "title")).toHaveText("A deal with this title exists");
  expect((await host.events("cockpit-error")).at(-1)!.detail).toEqual({
    status: 400,
    code: "duplicate",
    message: "A deal with this title exists",
    param: "input.title",
  });

  await form.getByLabel("Title *").fill("Globex expansion");
  await form.getByLabel("Amount *").fill("5000");
  await form.getByLabel("Stage *").selectOption("qualified");
  await form.getByRole("button", { name: "Create deal" }).click();
  await expect(host.column("Qualified")).toContainText("Globex expansion");
  const sent = calls.actions.at(-1)!;
  expect(sent).toMatchObject({
    service: "crm",
    action: "create_deal",
    input: { title: "Globex expansion", amount: "5000", stage: "qualified", hot: false },
  });
  expect(sent.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
  expect(calls.actions[0]!.idempotency_key).not.toBe(sent.idempotency_key);
  expect((await host.events("cockpit-action")).at(-1)!.detail).toMatchObject({
    service: "crm",
    action: "create_deal",
    result: { id: "deal_x" },
  });

  await host.moveCard("Acme rollout", "Won");
  await expect(host.column("Won")).toContainText("Acme rollout");
  await expect(host.column("Lead")).not.toContainText("Acme rollout");
  expect(calls.actions.at(-1)).toMatchObject({
    action: "update_deal_stage",
    input: { deal_id: "deal_1", stage: "won" },
  });
});

test("filters, load more, row actions and a repeatable line-item group", async ({ page, baseURL }) => {
  const calls = await fakeGateway(
    page,
    (url) => invoicesFixture(url.searchParams.get("after") ? 2 : 1, url.searchParams.get("status")),
    () => ({ status: 200, body: { ok: true, result: {}, refresh: [] } }),
  );
  const host = new WidgetHostPage(page);
  await host.goto(widgetPage("/invoices", baseURL!, { service: "billing", view: "invoices" }), "Invoices");
  const rows = host.widget.locator("tbody tr");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText("Acme");
  await expect(rows.nth(1).locator('[part~="badge"]')).toHaveAttribute("data-tone", "success");

  await host.widget.getByRole("button", { name: "Load more" }).click();
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(2)).toContainText("Initech");
  await expect(host.widget.getByRole("button", { name: "Load more" })).toBeHidden();
  expect(calls.views.at(-1)!.searchParams.get("after")).toBe("inv_2");

  await rows.nth(0).getByRole("button", { name: "Mark paid" }).click();
  await expect.poll(() => calls.actions.length).toBe(1);
  expect(calls.actions[0]).toMatchObject({
    service: "billing",
    action: "mark_invoice_paid",
    input: { invoice_id: "inv_1" },
  });

  await host.widget.getByRole("combobox", { name: "Status" }).selectOption("open");
  await expect(rows).toHaveCount(1);
  expect(calls.views.at(-1)!.searchParams.get("status")).toBe("open");

  const form = host.form("create_invoice");
  await form.getByLabel("Customer *").fill("Umbrella");
  await form.getByRole("button", { name: "Add line" }).click();
  await form.getByLabel("Description *").nth(0).fill("Setup");
  await form.getByLabel("Quantity *").nth(0).fill("2");
  await form.getByRole("button", { name: "Create invoice" }).click();
  await expect(host.fieldError(form, "lines.1.description")).toHaveText("Required");
  await form.getByRole("button", { name: "Remove line 2" }).click();
  await form.getByRole("button", { name: "Create invoice" }).click();
  await expect.poll(() => calls.actions.length).toBe(2);
  expect(calls.actions[1]).toMatchObject({
    action: "create_invoice",
    input: { customer: "Umbrella", lines: [{ description: "Setup", quantity: 2 }] },
  });
});

test("the host page's CSS does not reach inside the widget", async ({ page, baseURL }) => {
  await fakeGateway(
    page,
    () => invoicesFixture(1, null),
    () => ({ status: 200, body: {} }),
  );
  const host = new WidgetHostPage(page);
  const selectors = ["table", "td", "th", '[part~="primary"]', "select", "h2", "input"];
  const props = [
    "font-family",
    "font-size",
    "color",
    "background-color",
    "border-top-width",
    "padding-top",
    "letter-spacing",
    "text-transform",
    "line-height",
    "display",
    "width",
  ];

  await host.goto(widgetPage("/plain", baseURL!, { service: "billing", view: "invoices" }), "Invoices");
  const plain = await host.shadowStyles(selectors, props);
  await host.goto(widgetPage("/hostile", baseURL!, { service: "billing", view: "invoices" }, HOSTILE_CSS), "Invoices");
  // The hostile sheet is live on the host page itself…
  expect(await page.locator("body > button").evaluate((b) => getComputedStyle(b).backgroundColor)).toBe(
    "rgb(255, 0, 255)",
  );
  // …and changes nothing inside the widget.
  expect(await host.shadowStyles(selectors, props)).toEqual(plain);
});

test("a refused key shows a clear error state, not a blank box", async ({ page, baseURL }) => {
  await page.route("**/v1/sdk/token", (route) =>
    route.fulfill({
      status: 401,
      contentType: "application/json",
      headers: { "access-control-allow-origin": "*" },
      body: JSON.stringify({
        error: {
          message: "This API key has been revoked",
          type: "authentication_error",
          code: "revoked_api_key",
          param: null,
        },
      }),
    }),
  );
  const host = new WidgetHostPage(page);
  await host.goto(widgetPage("/revoked", baseURL!, { service: "crm", view: "pipeline" }));
  await expect(host.errorState).toContainText("This widget's key was revoked or expired");
  await expect(host.errorState).toContainText("This API key has been revoked");
  expect((await host.events("cockpit-error"))[0]!.detail).toMatchObject({ status: 401, code: "revoked_api_key" });
});

test("a tokenProvider set before the script loads is used, and called again before expiry", async ({
  page,
  baseURL,
}) => {
  const calls = await fakeGateway(
    page,
    () => invoicesFixture(1, null),
    () => ({ status: 200, body: {} }),
  );
  const gateway = baseURL!;
  // The property is set on the element before the module defines it (the page's own script runs first).
  const html = hostHtml({ gateway, attrs: { gateway, service: "billing", view: "invoices" } }).replace(
    "</body>",
    `<script>window.__provided = 0; document.querySelector("cockpit-widget").tokenProvider = async () => { window.__provided++; return { token: "h.e.s", expires_in: 2 }; };</script></body>`,
  );
  const host = new WidgetHostPage(page);
  await host.goto(site.page("/provider", html), "Invoices");
  expect(calls.token).toBe(0);
  // Renewed at 80 % of 2 s, again and again, without a reload.
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { __provided: number }).__provided), { timeout: 8_000 })
    .toBeGreaterThanOrEqual(3);
  expect(calls.views).toHaveLength(1);
});

test("theming: custom properties, ::part and prefers-color-scheme", async ({ page, baseURL }) => {
  await fakeGateway(
    page,
    () => invoicesFixture(1, null),
    () => ({ status: 200, body: {} }),
  );
  const gateway = baseURL!;
  const css =
    "cockpit-widget { --cockpit-accent: rgb(1, 2, 3); } cockpit-widget::part(td) { background-color: rgb(4, 5, 6); }";
  const host = new WidgetHostPage(page);
  await host.goto(widgetPage("/themed", gateway, { service: "billing", view: "invoices" }, css), "Invoices");
  const light = await host.shadowStyles([".root", '[part~="primary"]', "td"], ["background-color", "color"]);
  expect(light['[part~="primary"]']!["background-color"]).toBe("rgb(1, 2, 3)");
  expect(light.td!["background-color"]).toBe("rgb(4, 5, 6)");
  await page.emulateMedia({ colorScheme: "dark" });
  const dark = await host.shadowStyles([".root"], ["background-color", "color"]);
  expect(dark[".root"]).not.toEqual(light[".root"]);
  expect(dark[".root"]!["background-color"]).toBe("rgb(15, 23, 42)");
});
