import { expect, test } from "./fixtures";
import { WidgetsPage } from "./pages/widgets-page";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

test("/widgets: every view with a live preview by the real script, on a view + action key made there", async ({
  page,
  request,
  tenant,
  loginPage,
}) => {
  await loginPage.signInAs(tenant);
  const widgets = new WidgetsPage(page);
  await widgets.goto();

  const pipeline = widgets.viewCard("CRM · Pipeline");
  await expect(pipeline).toBeVisible();
  await expect(widgets.viewCard("CRM · Deals")).toBeVisible();
  await expect(widgets.viewCard("Billing · Invoices")).toBeVisible();
  // No key yet: no preview, and the snippet has a placeholder, never the session.
  await expect(widgets.preview(pipeline)).toHaveCount(0);
  await expect(pipeline.getByTestId("snippet-token-url")).toContainText('token-url="/api/cockpit-token"');

  await widgets.createKeyButton.click();
  await expect(widgets.keyInput).toHaveValue(/^sk-cp-[0-9A-Za-z]{40}$/);
  const key = await widgets.keyInput.inputValue();
  const preview = widgets.preview(pipeline);
  await expect(preview.getByRole("heading", { name: "Pipeline", level: 2 })).toBeVisible();
  await expect(preview.getByRole("region", { name: "Lead", exact: true })).toBeVisible();
  await expect(
    widgets.preview(widgets.viewCard("Billing · Invoices")).getByRole("heading", { name: "Invoices", level: 2 }),
  ).toBeVisible();

  // An action in one preview refreshes the other widgets showing a view its `refresh` names.
  const deals = widgets.preview(widgets.viewCard("CRM · Deals"));
  await expect(deals.getByRole("heading", { name: "Deals", level: 2 })).toBeVisible();
  const form = preview.locator('form[data-action="create_deal"]');
  await form.getByLabel("Title *").fill("Panel preview deal");
  await form.getByLabel("Amount *").fill("99");
  await form.getByRole("button", { name: "Create deal" }).click();
  await expect(preview.getByRole("region", { name: "Lead", exact: true })).toContainText("Panel preview deal");
  await expect(deals.getByRole("row").filter({ hasText: "Panel preview deal" })).toHaveCount(1);

  const origin = new URL(page.url()).origin;
  await expect(pipeline.getByTestId("snippet-token-url")).toContainText(
    `<script type="module" src="${origin}/v1/sdk/sdui-embed.js"></script>`,
  );
  await expect(pipeline.getByTestId("snippet-direct")).toContainText(`auth-token="${key}"`);
  await expect(page.getByTestId("snippet-backend")).toContainText(`COCKPIT_WIDGET_KEY=${key}`);
  await pipeline.getByRole("button", { name: "Copy: Your page (token-url: no key in the page)" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('service="crm" view="pipeline"');

  // The key has the view and action scopes only.
  const me = await request.post("/v1/sdk/token", { headers: { Authorization: `Bearer ${key}` } });
  expect(((await me.json()) as { scopes: string[] }).scopes.sort()).toEqual(["action", "view"]);
});
