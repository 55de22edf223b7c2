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
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" })).toHaveAttribute(
    "aria-current",
    "page",
  );
});

test("signing out ends the session", async ({ page, tenant, loginPage }) => {
  await loginPage.signInAs(tenant);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);

  await page.goto("/usage");
  await expect(page).toHaveURL(/\/login$/);
});

test("a throttled sign-in says so and how long to wait, and stays on /login", async ({ page, tenant, loginPage }) => {
  // The refusal Auth.js sends once the throttle is spent (its HTTP test lives in
  // test/http/sign-in-hardening.http.test.ts); answered here so the run spends no real budget.
  await page.route("**/api/auth/callback/credentials", (route) =>
    route.fulfill({
      status: 401,
      contentType: "application/json",
      body: JSON.stringify({ url: new URL("/api/auth/error?error=TooManyAttempts%3A840", page.url()).href }),
    }),
  );
  await loginPage.goto();
  await loginPage.signIn(tenant.email, tenant.password);
  await expect(loginPage.error).toHaveText("Too many failed sign-in attempts. Try again in 14 minutes.");
  await expect(page).toHaveURL(/\/login$/);
});

test("after signing in, a callbackUrl that leads off-site lands on the panel instead", async ({
  page,
  tenant,
  loginPage,
}) => {
  await page.goto("/login?callbackUrl=%2F%5Clocalhost:39999%2Fpwned");
  await expect(loginPage.heading).toBeVisible();
  await loginPage.signIn(tenant.email, tenant.password);
  await expect(page).toHaveURL(/^http:\/\/127\.0\.0\.1:\d+\/sdk-keys$/);
});
