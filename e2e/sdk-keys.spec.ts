import { expect, test } from "./fixtures";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

test("create a key, use it once, revoke it: the API refuses it at once", async ({
  page,
  request,
  tenant,
  loginPage,
  keysPage,
}) => {
  const name = `Backend ${Date.now()}`;
  await loginPage.signInAs(tenant);
  await keysPage.goto();

  const secret = await keysPage.createKey({ name, scopes: ["chat"], rateLimitPerMinute: 120 });
  expect(secret).toMatch(/^sk-cp-[0-9A-Za-z]{40}$/);
  await expect(keysPage.secretDialog).toContainText("will not be shown again");
  await keysPage.copySecret();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

  await keysPage.closeSecretDialog();
  // Shown once: after closing, the secret is nowhere in the page (text, inputs or attributes).
  await expect(page.getByTestId("new-key-secret")).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);

  const row = keysPage.row(name);
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId("key-prefix")).toHaveText(`${secret.slice(0, 12)}…`);
  await expect(row).toContainText("chat");
  await expect(row).toContainText("120 / min");
  await expect(keysPage.status(name)).toHaveText("active");

  const auth = { Authorization: `Bearer ${secret}` };
  const me = await request.get("/v1/me", { headers: auth });
  expect(me.status()).toBe(200);
  expect(await me.json()).toEqual({ company_id: tenant.companyId, company_name: tenant.companyName });

  await keysPage.revoke(name);
  await expect(keysPage.status(name)).toHaveText("revoked");
  await expect(keysPage.row(name).getByRole("button", { name: `Revoke ${name}` })).toHaveCount(0);

  const after = await request.get("/v1/me", { headers: auth });
  expect(after.status()).toBe(401);
  expect((await after.json()) as { error: { type: string } }).toMatchObject({
    error: { type: "authentication_error" },
  });

  // The status survives a reload (it is the server's, not only the cache's).
  await page.reload();
  await expect(keysPage.status(name)).toHaveText("revoked");
});

test("the create dialog shows the API's validation errors", async ({ tenant, loginPage, keysPage }) => {
  await loginPage.signInAs(tenant);
  await keysPage.goto();
  await keysPage.createButton.click();
  await keysPage.createDialog.getByLabel("Name").fill("No scopes");
  await keysPage.createDialog.getByRole("checkbox", { name: "chat", exact: true }).uncheck();
  await keysPage.createDialog.getByRole("button", { name: "Create key" }).click();
  await expect(keysPage.createDialog.getByRole("alert")).toHaveText("Choose at least one scope.");

  // A limit the server refuses (above 100,000/min): its error.message is shown as is.
  await keysPage.createDialog.getByRole("checkbox", { name: "chat", exact: true }).check();
  await keysPage.createDialog.getByLabel("Rate limit").fill("1000000");
  await keysPage.createDialog.getByRole("button", { name: "Create key" }).click();
  await expect(keysPage.createDialog.getByRole("alert")).toContainText(/rate_limit_per_minute|100000|100,000/);
  await expect(keysPage.secretDialog).toHaveCount(0);
});
