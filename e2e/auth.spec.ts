import { expect, test } from "./fixtures";

test("an unauthenticated visit to a panel page redirects to /login", async ({ page, loginPage }) => {
  await page.goto("/sdk-keys");
  await expect(page).toHaveURL(/\/login$/);
  await expect(loginPage.heading).toBeVisible();

  await page.goto("/usage");
  await expect(page).toHaveURL(/\/login$/);
});

test("a wrong password shows an error; the right one opens the panel", async ({ page, tenant, loginPage }) => {
  await loginPage.goto();
  await loginPage.signIn(tenant.email, `${tenant.password}-wrong`);
  await expect(loginPage.error).toHaveText("Incorrect email or password.");
  await expect(page).toHaveURL(/\/login$/);

  await loginPage.signIn(tenant.email, tenant.password);
  await expect(page).toHaveURL(/\/sdk-keys$/);
  await expect(page.getByTestId("user-email")).toHaveText(tenant.email);
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" })).toHaveAttribute("aria-current", "page");
});

test("signing out ends the session", async ({ page, tenant, loginPage }) => {
  await loginPage.signInAs(tenant);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);

  await page.goto("/usage");
  await expect(page).toHaveURL(/\/login$/);
});
