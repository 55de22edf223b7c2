import { expect, test } from "./fixtures";
import { admin } from "./support/admin-cli";

/** The catalog snapshot in db/catalog/, in the page's group order. */
const GROUPS = { openai: 19, openrouter: 38, google: 8, anthropic: 4, mistral: 5, deepseek: 2, local: 3 };

interface WireModel {
  id: string;
  status: string;
  pricing: { input: number; cached_input: number; output: number };
}

test("the catalog is listed by provider group with counts, the local group as offline development models; search filters by id", async ({
  page,
  tenant,
  loginPage,
  modelsPage,
}) => {
  await loginPage.signInAs(tenant);
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link")).toHaveText([
    "API keys",
    "Models",
    "Playground",
    "Threads",
    "Profiles",
    "Tools",
    "Knowledge",
    "Widgets",
    "Guardrails",
    "Agents",
    "Webhooks",
    "Usage",
  ]);
  await nav.getByRole("link", { name: "Models" }).click();
  await expect(modelsPage.heading).toBeVisible();
  await expect(nav.getByRole("link", { name: "Models" })).toHaveAttribute("aria-current", "page");

  // Out of the box only the offline group has what it needs: the page lists usable models only.
  await expect(modelsPage.showAll).toHaveAttribute("aria-checked", "false");
  await expect(modelsPage.groups).toHaveCount(1);
  await expect(modelsPage.group("local")).toBeVisible();
  await expect(modelsPage.groupStatus("local")).toHaveText("No key needed");
  const total = Object.values(GROUPS).reduce((a, b) => a + b, 0);
  await expect(modelsPage.summary).toContainText(
    `${GROUPS.local} usable models in 1 group · ${total - GROUPS.local} more without a provider key`,
  );
  await expect(modelsPage.group("local").getByTestId("group-offline")).toHaveText("Offline development models");

  // Prices in O₮ and dollars per 1M tokens (1 O₮ = $0.001); the recommended badge.
  const local = modelsPage.row("local-chat-latest");
  await expect(local).toContainText("Recommended");
  await expect(local.getByTestId("price-input")).toHaveText(/^100\s*\$0\.10$/);
  await expect(local.getByTestId("price-cached")).toHaveText(/^10\s*\$0\.01$/);
  await expect(local.getByTestId("price-output")).toHaveText(/^400\s*\$0\.40$/);
  await expect(local).toContainText("32.8K");
  await expect(local).toContainText("Images");
  await expect(local).toContainText("Tools");

  // "Show all models": every group in catalog order, each saying which key it misses, folded.
  await modelsPage.showAll.click();
  await expect(modelsPage.groups).toHaveCount(Object.keys(GROUPS).length);
  expect(await modelsPage.groups.evaluateAll((els) => els.map((e) => e.getAttribute("data-group")))).toEqual(
    Object.keys(GROUPS),
  );
  await expect(page).toHaveURL(/[?&]all=1/);
  for (const [group, count] of Object.entries(GROUPS)) {
    await expect(modelsPage.groupCount(group)).toHaveText(`${count} models`);
    if (group === "local") continue;
    await expect(modelsPage.groupStatus(group)).toHaveAttribute("data-configured", "false");
    await expect(modelsPage.group(group)).toHaveAttribute("data-open", "false");
    await expect(modelsPage.group(group).getByTestId("model-row")).toHaveCount(0);
  }
  await expect(modelsPage.groupStatus("openai")).toHaveText("Missing OPENAI_API_KEY");
  await expect(modelsPage.groupStatus("google")).toHaveText("Missing GEMINI_API_KEY");
  await expect(modelsPage.summary).toContainText(`${total} models in ${Object.keys(GROUPS).length} groups`);

  // A group unfolds to a page of rows, then to all of them.
  await modelsPage.groupToggle("openrouter").click();
  await expect(modelsPage.group("openrouter")).toHaveAttribute("data-open", "true");
  await expect(modelsPage.group("openrouter").getByTestId("model-row")).toHaveCount(8);
  await modelsPage.group("openrouter").getByTestId("group-show-more").click();
  await expect(modelsPage.group("openrouter").getByTestId("model-row")).toHaveCount(GROUPS.openrouter);
  await modelsPage.groupToggle("openrouter").click();
  await expect(modelsPage.group("openrouter").getByTestId("model-row")).toHaveCount(0);

  // A disabled slug names its replacement.
  await modelsPage.groupToggle("anthropic").click();
  const claude = modelsPage.row("claude-opus-4-1");
  await expect(claude.getByTestId("model-status")).toHaveText("disabled");
  await expect(claude.getByTestId("model-replacement")).toHaveText("Use or-claude-opus-4-1 instead.");

  // A search opens every group it matches, in full.
  await modelsPage.search.fill("claude");
  await expect(modelsPage.groups).toHaveCount(2);
  await expect(modelsPage.groupCount("anthropic")).toHaveText("4 models");
  await expect(modelsPage.groupCount("openrouter")).toHaveText("6 of 38");
  await expect(modelsPage.rows).toHaveCount(10);
  for (const id of await modelsPage.rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-model-id") ?? "")))
    expect(id).toContain("claude");

  await modelsPage.search.fill("no-such-model");
  await expect(modelsPage.groups).toHaveCount(0);
  await expect(page.getByText("No model matches “no-such-model”")).toBeVisible();

  // The choice survives a reload (it is in the URL); switching it off lists usable models again.
  await modelsPage.search.fill("");
  await page.reload();
  await expect(modelsPage.showAll).toHaveAttribute("aria-checked", "true");
  await expect(modelsPage.groups).toHaveCount(Object.keys(GROUPS).length);
  await modelsPage.showAll.click();
  await expect(modelsPage.groups).toHaveCount(1);
  await expect(modelsPage.rows).toHaveCount(GROUPS.local);
  await expect(page).not.toHaveURL(/all=1/);

  // Out of the search too: a usable-only search does not find a model without a key, and offers all.
  await modelsPage.search.fill("deepseek");
  await expect(modelsPage.groups).toHaveCount(0);
  await page.getByRole("button", { name: "Search all models" }).click();
  await expect(modelsPage.groupCount("deepseek")).toHaveText("2 models");
});

test("hiding a model removes it from /v1/models for this company only; showing it restores it", async ({
  page,
  request,
  tenant,
  cliKey,
  loginPage,
  modelsPage,
}) => {
  // Three operator CLI calls (each boots the app's code) before the page is even opened.
  test.slow();
  const slug = "deepseek-reasoner";
  const { key } = await cliKey(["chat"]);
  const other = await admin<{ company_id: string }>("company", "create", "--name", "E2E other company");
  const otherKey = await admin<{ key: string }>(
    "key",
    "create",
    "--company",
    other.company_id,
    "--scopes",
    "chat",
    "--name",
    "e2e other",
  );
  const listed = async (secret: string) => {
    const res = await request.get("/v1/models", { headers: { Authorization: `Bearer ${secret}` } });
    expect(res.status()).toBe(200);
    return ((await res.json()) as { data: WireModel[] }).data.map((m) => m.id);
  };
  expect(await listed(key)).toContain(slug);

  await loginPage.signInAs(tenant);
  await modelsPage.gotoAll();
  await modelsPage.reveal(slug);
  await expect(modelsPage.visibleSwitch(slug)).toHaveAttribute("aria-checked", "true");
  await modelsPage.setVisible(slug, false);
  await expect(modelsPage.row(slug)).toHaveAttribute("data-hidden", "true");
  await expect(modelsPage.row(slug).getByTestId("model-hidden")).toHaveText("Hidden");

  const afterHide = await listed(key);
  expect(afterHide).not.toContain(slug);
  expect(afterHide).toContain("deepseek-chat");
  const direct = await request.get(`/v1/models/${slug}`, { headers: { Authorization: `Bearer ${key}` } });
  expect(direct.status()).toBe(404);
  // Overrides belong to one company.
  expect(await listed(otherKey.key)).toContain(slug);

  // The server's state, not the cache's; and the playground no longer offers it.
  await page.reload();
  await modelsPage.reveal(slug);
  await expect(modelsPage.visibleSwitch(slug)).toHaveAttribute("aria-checked", "false");
  await page.goto("/playground");
  await expect(page.getByLabel("Model", { exact: true }).locator(`option[value="${slug}"]`)).toHaveCount(0);

  await modelsPage.gotoAll();
  await modelsPage.reveal(slug);
  await modelsPage.setVisible(slug, true);
  await expect(modelsPage.row(slug)).toHaveAttribute("data-hidden", "false");
  expect(await listed(key)).toContain(slug);
});

test("prices are read-only on the page; the operator's price for the company (CLI model price) reaches the page and /v1/models, --reset undoes it; enabling a disabled slug and reset to catalog", async ({
  page,
  request,
  tenant,
  cliKey,
  loginPage,
  modelsPage,
}) => {
  // Three operator CLI calls (each boots the app's code) and three page loads.
  test.slow();
  const { key } = await cliKey(["chat"]);
  const wire = async (slug: string) => {
    const res = await request.get("/v1/models", { headers: { Authorization: `Bearer ${key}` } });
    return ((await res.json()) as { data: WireModel[] }).data.find((m) => m.id === slug)!;
  };
  const slug = "mistral-small-latest";
  const catalog = (await wire(slug)).pricing;
  expect(catalog).toMatchObject({ input: 100, cached_input: 100, output: 300 });

  await loginPage.signInAs(tenant);
  await modelsPage.gotoAll();
  await modelsPage.reveal(slug);
  await expect(modelsPage.pricesNote).toHaveText(/Prices are set by the gateway operator and cannot be changed here/);
  // Nothing on the page edits a price: no price button, no input in any row.
  await expect(page.getByRole("button", { name: /price/i })).toHaveCount(0);
  await expect(modelsPage.rows.locator("input")).toHaveCount(0);
  await expect(modelsPage.rows.getByRole("spinbutton")).toHaveCount(0);
  expect(await modelsPage.rowPrices(slug)).toEqual({ input: 100, cached_input: 100, output: 300 });

  // The operator prices the slug for this company: the page and the API follow, read-only.
  const priced = await admin(
    "model",
    "price",
    "--company",
    tenant.companyId,
    "--model",
    slug,
    "--input",
    "1.5",
    "--cached-input",
    "0.5",
    "--output",
    "3",
  );
  expect(priced).toEqual({
    company_id: tenant.companyId,
    model: slug,
    pricing: { input: 1.5, cached_input: 0.5, output: 3 },
  });
  await expect.poll(async () => (await wire(slug)).pricing).toMatchObject({ input: 1.5, cached_input: 0.5, output: 3 });
  await page.reload();
  await modelsPage.reveal(slug);
  await expect.poll(() => modelsPage.rowPrices(slug)).toEqual({ input: 1.5, cached_input: 0.5, output: 3 });
  await expect(modelsPage.row(slug).getByTestId("price-input")).toHaveAttribute("data-source", "operator");
  await expect(modelsPage.row(slug).getByRole("button")).toHaveCount(0);

  const reset = await admin("model", "price", "--company", tenant.companyId, "--model", slug, "--reset");
  expect(reset).toEqual({
    company_id: tenant.companyId,
    model: slug,
    pricing: { input: 100, cached_input: 100, output: 300 },
  });
  await expect.poll(async () => (await wire(slug)).pricing).toMatchObject(catalog);
  await page.reload();
  await modelsPage.reveal(slug);
  await expect.poll(() => modelsPage.rowPrices(slug)).toEqual({ input: 100, cached_input: 100, output: 300 });
  await expect(modelsPage.row(slug).getByTestId("price-input")).toHaveAttribute("data-source", "catalog");

  const claude = "claude-haiku-4-5";
  expect((await wire(claude)).status).toBe("disabled");
  await modelsPage.reveal(claude);
  await modelsPage.setEnabled(claude, true);
  await expect(modelsPage.row(claude).getByTestId("model-status")).toHaveText("enabled by you");
  expect((await wire(claude)).status).toBe("active");
  await modelsPage.resetToCatalog(claude);
  await expect(modelsPage.row(claude).getByRole("button", { name: `Reset ${claude} to catalog` })).toHaveCount(0);
  await expect(modelsPage.row(claude).getByTestId("model-status")).toHaveText("disabled");
  expect((await wire(claude)).status).toBe("disabled");
});
