import { createTenant, expect, test } from "./fixtures";
import { PanelFrame } from "./pages/panel-frame";
import { admin } from "./support/admin-cli";

test("copy a profile's id from the Profiles page: the clipboard holds the id the API returned", async ({
  page,
  context,
  request,
  tenant,
  cliKey,
  loginPage,
  profilesPage,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const { key } = await cliKey(["chat"]);
  const name = `Copied ${Date.now().toString(36)}`;
  const created = await request.post("/v1/profiles", {
    headers: { authorization: `Bearer ${key}` },
    data: { name, model_slug: "local-mini" },
  });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };

  await loginPage.signInAs(tenant);
  await profilesPage.goto();
  const copyId = profilesPage.row(name).getByTestId("copy-id");
  await expect(copyId).toContainText(id);
  const button = copyId.getByRole("button", { name: `Copy profile id ${id}` });
  await button.click();
  await expect(button).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(id);
});

test("Agents without a profile say to create one first and link to Profiles", async ({
  page,
  loginPage,
  profilesPage,
}) => {
  const tenant = await createTenant({ creditsOt: 0 });
  await loginPage.signInAs(tenant);
  await page.goto("/agents");
  const hint = page.getByTestId("agents-need-profile");
  await expect(hint).toContainText("Create a profile first");
  await expect(page.getByRole("button", { name: "Create agent" })).toHaveCount(0);
  await hint.getByRole("link", { name: "Go to Profiles" }).click();
  await expect(page).toHaveURL(/\/profiles$/);
  await expect(profilesPage.heading).toBeVisible();
  await expect(page.getByTestId("empty-state")).toContainText("No profiles yet");
});

test("the frame shows the company's name and balance, and a grant shows up without a reload", async ({
  page,
  loginPage,
}) => {
  const tenant = await createTenant({ creditsOt: 12.5 });
  await loginPage.signInAs(tenant);
  const frame = new PanelFrame(page);
  await expect(frame.companyName).toHaveText(tenant.companyName);
  await expect(frame.balance).toHaveText("12.5 O₮");

  await admin("credits", "grant", "--company", tenant.companyId, "--amount", "30", "--note", "top-up");
  // The frame polls: the new balance arrives on its own (a focus would fetch it at once).
  await expect(frame.balance).toHaveText("42.5 O₮", { timeout: 30_000 });
});

test("an unknown panel path shows the branded 404 with links back; an unknown /v1 path stays a JSON 404", async ({
  page,
  request,
}) => {
  const res = await page.goto("/no-such-page");
  expect(res?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", "/login");
  await page.getByRole("link", { name: "Back to the panel" }).click();
  // Signed out, the panel sends the visitor to sign in.
  await expect(page).toHaveURL(/\/login/);

  const api = await request.get("/v1/no-such-endpoint");
  expect(api.status()).toBe(404);
  expect(api.headers()["content-type"]).toContain("application/json");
  expect(((await api.json()) as { error: { code: string } }).error.code).toBe("unknown_url");
});
