import { expect, test } from "./fixtures";

/** An agent and its endpoint made in the panel, a sender POSTs, the event turns done and its thread opens. */
test("create an agent and a webhook in the panel, POST to its URL, watch the event turn done and open the woken thread", async ({
  request,
  tenant,
  cliKey,
  loginPage,
  webhooksPage,
  threadsPage,
  page,
}) => {
  test.setTimeout(90_000);
  const tag = Date.now().toString(36);
  const { key } = await cliKey(["chat"]);
  const profile = await request.post("/v1/profiles", {
    headers: { authorization: `Bearer ${key}` },
    data: { name: `Desk ${tag}`, model_slug: "local-mini" },
  });
  expect(profile.status()).toBe(201);

  await loginPage.signInAs(tenant);
  await webhooksPage.createAgent(`Order desk ${tag}`, `Desk ${tag}`, "orders.*");
  const url = await webhooksPage.createEndpoint(`Order desk ${tag}`, `Shop ${tag}`);
  expect(url).toMatch(new RegExp(`/v1/public/triggers/${tenant.companyId}/whs_`));

  const sent = await request.post(url, { data: { event_topic: "orders.created", payload: { order: tag } } });
  expect(sent.status()).toBe(202);
  const { id } = (await sent.json()) as { id: string };

  await expect(async () => {
    await page.reload();
    await expect(webhooksPage.eventRow(id).getByTestId("event-status")).toHaveText("done", { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await webhooksPage.eventRow(id).getByRole("link", { name: "completed" }).click();
  await expect(page).toHaveURL(/\/threads\?source=webhook&thread=thread_/);
  await expect(threadsPage.detail).toBeVisible();
  await expect(threadsPage.messages).toHaveCount(2);
  await expect(threadsPage.runs.first()).toContainText("completed");
});

test("edit an agent's name in the panel; pause an endpoint (deliveries refused) and resume it", async ({
  request,
  tenant,
  cliKey,
  loginPage,
  webhooksPage,
  page,
}) => {
  test.setTimeout(60_000);
  const tag = Date.now().toString(36);
  const { key } = await cliKey(["chat"]);
  const profile = await request.post("/v1/profiles", {
    headers: { authorization: `Bearer ${key}` },
    data: { name: `Editor ${tag}`, model_slug: "local-mini" },
  });
  expect(profile.status()).toBe(201);

  await loginPage.signInAs(tenant);
  await webhooksPage.createAgent(`Draft desk ${tag}`, `Editor ${tag}`, "orders.*");
  await webhooksPage.editAgent(`Draft desk ${tag}`, { name: `Billing desk ${tag}`, topics: "billing.>" });
  await expect(webhooksPage.agentRow(`Billing desk ${tag}`)).toContainText("billing.>");
  await expect(webhooksPage.agentRow(`Draft desk ${tag}`)).toHaveCount(0);
  await page.reload();
  await expect(webhooksPage.agentRow(`Billing desk ${tag}`)).toBeVisible();

  const url = await webhooksPage.createEndpoint(`Billing desk ${tag}`, `Invoices ${tag}`);
  await expect(webhooksPage.webhookRow(`Invoices ${tag}`).getByTestId("webhook-status")).toHaveText("active");
  await webhooksPage.setEndpointActive(`Invoices ${tag}`, false);
  expect((await request.post(url, { data: { event_topic: "billing.paid", payload: {} } })).status()).toBe(403);
  await page.reload();
  await expect(webhooksPage.webhookRow(`Invoices ${tag}`).getByTestId("webhook-status")).toHaveText("paused");
  await webhooksPage.setEndpointActive(`Invoices ${tag}`, true);
  expect((await request.post(url, { data: { event_topic: "billing.paid", payload: {} } })).status()).toBe(202);
});
