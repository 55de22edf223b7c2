import { createTenant, expect, test } from "./fixtures";
import { LoginPage } from "./pages/login-page";
import { admin } from "./support/admin-cli";

/** Failures per email and address before the throttle refuses (lib/panel/login-throttle.ts). */
const LOCKOUT_AFTER = 10;

test("a password reset through the CLI replaces the password, lifts the lockout and ends older sessions", async ({
  page,
  browser,
  loginPage,
}) => {
  test.setTimeout(120_000);
  // A user of its own: this test locks it out.
  const user = await createTenant({ creditsOt: 0 });
  // A session signed in before the reset, in a browser of its own.
  const earlier = await browser.newContext();
  const earlierPage = await earlier.newPage();
  await new LoginPage(earlierPage).signInAs(user);
  await loginPage.goto();
  for (let i = 0; i < LOCKOUT_AFTER; i++) {
    await loginPage.signIn(user.email, `${user.password}-wrong-${i}`);
    await expect(loginPage.error).toHaveText("Incorrect email or password.");
  }
  await loginPage.signIn(user.email, user.password);
  await expect(loginPage.error).toContainText("Too many failed sign-in attempts");

  const newPassword = `${user.password}-new`;
  const reset = await admin<{ user_id: string; email: string }>(
    "user",
    "password",
    "--email",
    user.email,
    "--password",
    newPassword,
  );
  expect(reset.email).toBe(user.email);

  // The reset ends the session signed in with the old password: its next page goes to sign-in.
  await earlierPage.goto("/usage");
  await expect(earlierPage).toHaveURL(/\/login/);
  await earlier.close();

  await loginPage.signIn(user.email, user.password);
  await expect(loginPage.error).toHaveText("Incorrect email or password.");
  await loginPage.signIn(user.email, newPassword);
  await expect(page).toHaveURL(/\/sdk-keys$/);
  await expect(page.getByTestId("user-email")).toHaveText(user.email);
});
