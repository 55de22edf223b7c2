import { expect, test } from "@playwright/test";
import { SetupPage } from "./pages/setup-page";
import { createScratchDatabase, freePort, startApp, type StartedApp } from "./support/first-run-server";

const SETUP_LINK = /(http:\/\/localhost:\d+\/setup\?token=[A-Za-z0-9]+)\n$/;

test("the first run's last line is a setup link that creates the admin and signs in, once", async ({ page }) => {
  test.setTimeout(240_000);
  const database = await createScratchDatabase();
  let app: StartedApp | undefined;
  try {
    app = await startApp({ databaseUrl: database.url, port: await freePort(), until: SETUP_LINK, timeoutMs: 180_000 });
    const printed = app.stdout();
    const link = SETUP_LINK.exec(printed)![1]!;
    // The last block: ready, the one all-scopes key of the first run, then the link as the last line.
    const lastBlock = printed.slice(printed.lastIndexOf("Cockpit Gateway is ready"));
    expect(lastBlock).toMatch(/SDK key\s+sk-cp-\S+/);
    expect(lastBlock.trimEnd().split("\n").at(-1)!.trim()).toBe(link);

    // Until the admin exists, the login page points to the link.
    await page.goto(new URL("/login", link).href);
    await expect(page.getByTestId("setup-pending")).toContainText("setup link");

    const setup = new SetupPage(page);
    await page.goto(link);
    await expect(setup.heading).toBeVisible();
    await setup.createAdmin("owner@example.com", "first-run-pass", "first-run-typo");
    await expect(setup.error).toHaveText("The passwords do not match.");
    await setup.createAdmin("owner@example.com", "first-run-pass");
    await expect(page).toHaveURL(/\/sdk-keys$/);
    await expect(page.getByTestId("user-email")).toHaveText("owner@example.com");

    // The link is spent: the API refuses it, and the page says setup is done.
    const again = await page.request.post(new URL("/api/setup", link).href, {
      data: { token: new URL(link).searchParams.get("token"), email: "second@example.com", password: "second-pass-1" },
    });
    expect(again.status()).toBe(409);
    expect(((await again.json()) as { error: { message: string } }).error.message).toMatch(/already used/);
    await page.goto(link);
    await expect(setup.notice).toContainText("Setup is done");
    await expect(setup.submit).toHaveCount(0);
    await page.goto(new URL("/login", link).href);
    await expect(page.getByTestId("setup-pending")).toHaveCount(0);
  } finally {
    await app?.stop();
    await database.drop();
  }
});
