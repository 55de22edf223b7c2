import { expect, test } from "./fixtures";

test("create a guardrail rule and see it fire in the try-it box; switched off, it no longer fires", async ({
  tenant,
  loginPage,
  guardrailsPage,
}) => {
  const tag = Date.now();
  const name = `Redact PINs ${tag}`;
  await loginPage.signInAs(tenant);
  await guardrailsPage.goto();

  await guardrailsPage.createRule({
    name,
    stage: "input",
    matchType: "regex",
    pattern: "PIN-\\d{4}",
    action: "redact",
  });
  const row = guardrailsPage.row(name);
  await expect(row).toContainText("input");
  await expect(row).toContainText("regex");
  await expect(row.getByTestId("guardrail-action")).toHaveText("redact");
  await expect(row.getByRole("switch")).toHaveAttribute("aria-checked", "true");

  await guardrailsPage.tryText("my PIN-1234 is safe", "input");
  await expect(guardrailsPage.tryResult.locator(`[data-testid="fired-rule"][data-rule-name="${name}"]`)).toBeVisible();
  await expect(guardrailsPage.tryResult.getByTestId("try-output")).toHaveText("my [REDACTED] is safe");

  // The output stage has no rule of this name: nothing of ours fires there.
  await guardrailsPage.tryText("my PIN-1234 is safe", "output");
  await expect(guardrailsPage.tryResult.locator(`[data-testid="fired-rule"][data-rule-name="${name}"]`)).toHaveCount(0);
  await expect(guardrailsPage.tryResult.getByTestId("try-output")).toHaveText("my PIN-1234 is safe");

  await row.getByRole("switch").click();
  await expect(row.getByRole("switch")).toHaveAttribute("aria-checked", "false");
  await guardrailsPage.tryText("my PIN-1234 is safe", "input");
  await expect(guardrailsPage.tryResult.getByTestId("try-output")).toHaveText("my PIN-1234 is safe");
  await expect(guardrailsPage.tryResult.locator(`[data-testid="fired-rule"][data-rule-name="${name}"]`)).toHaveCount(0);
});

test("create two profiles, set each default in turn: exactly one default, and it survives a reload", async ({
  page,
  tenant,
  loginPage,
  profilesPage,
}) => {
  const tag = Date.now();
  const first = `Support ${tag}`;
  const second = `Sales ${tag}`;
  await loginPage.signInAs(tenant);
  await profilesPage.goto();

  await profilesPage.createProfile({ name: first, systemPrompt: "Answer kindly.", model: "local-chat-latest" });
  await expect(profilesPage.row(first).getByTestId("profile-model")).toHaveText("local-chat-latest");
  await profilesPage.createProfile({ name: second, systemPrompt: "Sell politely." });

  await profilesPage.defaultSwitch(first).click();
  await expect(profilesPage.defaultSwitch(first)).toHaveAttribute("aria-checked", "true");
  await expect(profilesPage.row(first).getByTestId("default-badge")).toBeVisible();

  await profilesPage.defaultSwitch(second).click();
  await expect(profilesPage.defaultSwitch(second)).toHaveAttribute("aria-checked", "true");
  await expect(profilesPage.defaultSwitch(first)).toHaveAttribute("aria-checked", "false");

  await page.reload();
  await expect(profilesPage.defaultSwitch(second)).toHaveAttribute("aria-checked", "true");
  await expect(profilesPage.defaultSwitch(first)).toHaveAttribute("aria-checked", "false");
  await expect(profilesPage.row(second)).toContainText("Sell politely.");
});
