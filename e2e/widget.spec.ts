import { randomBytes } from "node:crypto";
import { expect, test } from "./fixtures";
import { WidgetHostPage } from "./pages/widget-host-page";
import { HOSTILE_CSS, hostHtml, startHostSite, type HostSite } from "./support/host-site";

/**
 * The real widget script and crm service on a plain HTML page of another origin. The e2e server
 * issues short-lived tokens (playwright.config.ts), so renewals happen here.
 */
let site: HostSite;

test.beforeAll(async ({ baseURL }) => {
  site = await startHostSite(baseURL!);
});
test.afterAll(async () => {
  await site.close();
});

test("on another origin: renders the pipeline, creates and moves a deal, renews its token, shows the revocation", async ({
  page,
  baseURL,
  cliKey,
  request,
}) => {
  test.setTimeout(60_000);
  const gateway = baseURL!;
  const widgetKey = await cliKey(["view", "action"]);
  const adminKey = await cliKey(["admin"]);
  const tokenCalls: number[] = [];
  page.on("request", (r) => {
    if (r.url() === `${gateway}/v1/sdk/token` && r.method() === "POST") tokenCalls.push(Date.now());
  });

  const url = site.page(
    "/crm",
    hostHtml({
      gateway,
      css: HOSTILE_CSS,
      attrs: { gateway, service: "crm", view: "pipeline", "auth-token": widgetKey.key },
    }),
  );
  expect(new URL(url).origin).not.toBe(new URL(gateway).origin);
  const host = new WidgetHostPage(page);
  await host.goto(url, "Pipeline");
  for (const stage of ["Lead", "Qualified", "Proposal", "Won", "Lost"]) await expect(host.column(stage)).toBeVisible();
  const firstRender = Date.now();

  // Create a deal through the generated form (checked in the browser first).
  const title = `Widget deal ${randomBytes(3).toString("hex")}`;
  const form = host.form("create_deal");
  await form.getByLabel("Amount *").fill("12.345");
  await form.getByRole("button", { name: "Create deal" }).click();
  await expect(host.fieldError(form, "title")).toHaveText("Required");
  await expect(host.fieldError(form, "amount")).toHaveText("Has the wrong format");
  await form.getByLabel("Title *").fill(title);
  await form.getByLabel("Contact").fill("Ada Lovelace");
  await form.getByLabel("Amount *").fill("1200.50");
  await form.getByRole("button", { name: "Create deal" }).click();
  await expect(host.column("Lead")).toContainText(title);
  await expect(host.card(title)).toContainText("$1,200.50");
  expect((await host.events("cockpit-action")).at(-1)!.detail).toMatchObject({
    service: "crm",
    action: "create_deal",
    result: { title },
  });

  // Survive a renewal: wait past the first token's 5 s lifetime, then act with the renewed one.
  await expect.poll(() => tokenCalls.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  await page.waitForTimeout(Math.max(0, 5_500 - (Date.now() - firstRender)));
  await host.moveCard(title, "Won");
  await expect(host.column("Won")).toContainText(title);
  await expect(host.column("Lead")).not.toContainText(title);
  expect((await host.events("cockpit-error")).filter((e) => e.detail.status === 401)).toEqual([]);

  // Revoked: the next renewal is refused and the widget says so.
  const revoked = await request.delete(`/v1/sdk/keys/${widgetKey.id}`, {
    headers: { Authorization: `Bearer ${adminKey.key}` },
  });
  expect(revoked.status()).toBe(200);
  await expect(host.errorState).toContainText("This widget's key was revoked or expired", { timeout: 15_000 });
  await expect(host.widget.locator('[part~="board"]')).toHaveCount(0);
  expect((await host.events("cockpit-error")).at(-1)!.detail).toMatchObject({ status: 401 });
});

test("the host page's stylesheet does not change the widget (real pipeline)", async ({ page, baseURL, cliKey }) => {
  const gateway = baseURL!;
  const { key } = await cliKey(["view"]);
  const host = new WidgetHostPage(page);
  const attrs = { gateway, service: "crm", view: "pipeline", "auth-token": key };
  const selectors = [
    '[part~="board"]',
    '[part~="column"]',
    '[part~="stat-value"]',
    "form",
    "input",
    "select",
    '[part~="submit"]',
    "h2",
  ];
  const props = [
    "font-family",
    "font-size",
    "color",
    "background-color",
    "border-top-width",
    "border-top-style",
    "padding-top",
    "letter-spacing",
    "text-transform",
    "line-height",
    "width",
    "display",
  ];

  await host.goto(site.page("/plain-crm", hostHtml({ gateway, attrs })), "Pipeline");
  const plain = await host.shadowStyles(selectors, props);
  await host.goto(site.page("/hostile-crm", hostHtml({ gateway, attrs, css: HOSTILE_CSS })), "Pipeline");
  expect(await page.locator("body > table td").evaluate((td) => getComputedStyle(td).backgroundColor)).toBe(
    "rgb(0, 0, 255)",
  );
  expect(await host.shadowStyles(selectors, props)).toEqual(plain);
  // The widget's own styles stay inside it: the host's button keeps the host's look.
  expect(await page.locator("body > button").evaluate((b) => getComputedStyle(b).fontSize)).toBe("30px");
});

test("token-url: the host's backend exchanges the key; the page never holds it", async ({ page, baseURL, cliKey }) => {
  const gateway = baseURL!;
  const { key } = await cliKey(["view", "action"]);
  site.setKey(key);
  const before = site.tokenCalls();
  const host = new WidgetHostPage(page);
  const url = site.page(
    "/token-url",
    hostHtml({ gateway, attrs: { gateway, service: "crm", view: "deals", "token-url": "/token" } }),
  );
  await host.goto(url, "Deals");
  expect(await page.content()).not.toContain(key);
  expect(site.tokenCalls() - before).toBeGreaterThanOrEqual(1);
  // Renewed through the same URL before the 5 s token expires.
  await expect.poll(() => site.tokenCalls() - before, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
});

test("the script is public, CORS-open and cacheable", async ({ request }) => {
  const res = await request.get("/v1/sdk/sdui-embed.js", { headers: { Origin: "http://example.test" } });
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toBe("text/javascript; charset=utf-8");
  expect(res.headers()["access-control-allow-origin"]).toBe("*");
  expect(res.headers()["cache-control"]).toContain("max-age=");
  const etag = res.headers().etag!;
  expect(etag).toMatch(/^"[\w-]+"$/);
  expect(await res.text()).toContain("cockpit-widget");
  const again = await request.get("/v1/sdk/sdui-embed.js", { headers: { "If-None-Match": etag } });
  expect(again.status()).toBe(304);
});
