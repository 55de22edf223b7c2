import { expect, test } from "./fixtures";
import { ApiReferencePage } from "./pages/api-reference-page";
import { VIEWPORTS } from "./pages/panel-frame";

/**
 * The API reference at /docs/api renders in Chromium for anyone (no panel login), from this origin
 * only: no request leaves it and the page's CSP refuses nothing Scalar needs.
 */
test("the API reference renders the document's operations without leaving the origin", async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  const foreign: string[] = [];
  const cspErrors: string[] = [];
  page.on("request", (req) => {
    const url = req.url();
    if (!url.startsWith(baseURL!) && !url.startsWith("data:") && !url.startsWith("blob:")) foreign.push(url);
  });
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy/i.test(msg.text())) cspErrors.push(msg.text());
  });

  const reference = new ApiReferencePage(page);
  await page.setViewportSize(VIEWPORTS.desktop);
  await reference.open("Create chat completion");
  await expect(page).toHaveURL(/\/docs\/api$/);
  // Every family is a group of the sidebar; opening one lists its operations.
  const sidebar = page.getByRole("complementary");
  await sidebar.getByRole("button", { name: "Open Group - Runs" }).click();
  await expect(sidebar.getByRole("link", { name: /^Create run/ })).toBeVisible();
  // The request body comes from ChatCompletionInput: its fields are listed.
  await expect(page.getByText("max_completion_tokens").first()).toBeAttached();
  await reference.operation("Create chat completion").scrollIntoViewIfNeeded();
  await reference.screenshot("api-reference-desktop");

  await page.setViewportSize(VIEWPORTS.phone);
  await reference.open("Create chat completion");
  await reference.screenshot("api-reference-phone");

  expect(foreign, "requests outside the gateway's origin").toEqual([]);
  expect(cspErrors, "CSP violations").toEqual([]);
});

test("the panel's API keys page links to the reference", async ({ page, loginPage, keysPage, tenant }) => {
  await loginPage.signInAs(tenant);
  await keysPage.goto();
  await page.getByTestId("api-reference-link").click();
  await expect(page).toHaveURL(/\/docs\/api$/);
  await expect(new ApiReferencePage(page).operation("Create chat completion")).toBeVisible({ timeout: 30_000 });
});
