import { createTenant, expect, test } from "./fixtures";
import { admin } from "./support/admin-cli";

test("create a profile in the panel, set it default, run a thread through the API, open it in /threads and see its run steps", async ({
  request,
  loginPage,
  profilesPage,
  threadsPage,
}) => {
  // A company of its own: the default profile set here must not reach the shared tenant's other tests.
  const tenant = await createTenant({ creditsOt: 20 });
  const { key } = await admin<{ id: string; key: string }>(
    "key",
    "create",
    "--company",
    tenant.companyId,
    "--scopes",
    "chat",
    "--name",
    "e2e threads key",
  );
  const name = `Concierge ${Date.now()}`;

  await loginPage.signInAs(tenant);
  await profilesPage.goto();
  await profilesPage.createProfile({ name, systemPrompt: "Answer in one short sentence." });
  await profilesPage.defaultSwitch(name).click();
  await expect(profilesPage.defaultSwitch(name)).toHaveAttribute("aria-checked", "true");

  const headers = { Authorization: `Bearer ${key}` };
  const created = await request.post("/v1/threads", { headers, data: { metadata: { e2e: "threads" } } });
  expect(created.status()).toBe(201);
  const threadId = ((await created.json()) as { id: string }).id;
  const message = await request.post(`/v1/threads/${threadId}/messages`, {
    headers,
    data: { role: "user", content: "Where is my parcel?" },
  });
  expect(message.status()).toBe(201);
  const ran = await request.post(`/v1/threads/${threadId}/runs`, { headers, data: { model: "local-mini" } });
  expect(ran.status(), await ran.text()).toBe(200);
  const run = (await ran.json()) as { id: string; status: string; model: string };
  expect(run).toMatchObject({ status: "completed", model: "local-mini" });

  await threadsPage.goto();
  await expect(threadsPage.row(threadId)).toBeVisible();
  await threadsPage.sourceTab("Webhook");
  await expect(threadsPage.row(threadId)).toHaveCount(0);
  await threadsPage.sourceTab("API");
  await threadsPage.open(threadId);

  await expect(threadsPage.messages).toHaveCount(2);
  await expect(threadsPage.messages.first()).toHaveAttribute("data-role", "user");
  await expect(threadsPage.messages.first()).toContainText("Where is my parcel?");
  await expect(threadsPage.messages.nth(1)).toHaveAttribute("data-role", "assistant");
  await expect(threadsPage.messages.nth(1).getByTestId("message-run-link")).toHaveText(run.id);

  const row = threadsPage.run(run.id);
  await expect(row.getByTestId("run-status")).toHaveAttribute("data-status", "completed");
  await expect(row.getByTestId("run-model")).toHaveText("local-mini");
  await expect(threadsPage.runDetail).toHaveAttribute("data-run-id", run.id);
  await expect(threadsPage.step("profiles")).toHaveCount(1);
  await expect(threadsPage.step("profiles").getByTestId("step-detail")).toContainText(name);
  await expect(threadsPage.step("model_call")).toHaveCount(1);
  await expect(threadsPage.step("model_call").getByTestId("step-detail")).toContainText("local-mini");
  // A timeline reads in order: the profiles come before the model is called.
  const types = await threadsPage.steps.evaluateAll((els) => els.map((el) => el.getAttribute("data-step-type")));
  expect(types.indexOf("profiles")).toBeLessThan(types.indexOf("model_call"));

  // The search by exact id finds the same thread; an unknown id finds nothing.
  await threadsPage.findById("thread_doesnotexist");
  await expect(threadsPage.page.getByTestId("threads-empty")).toContainText("No thread with id thread_doesnotexist");
  await threadsPage.findById(threadId);
  await expect(threadsPage.row(threadId)).toHaveCount(1);
  await expect(threadsPage.detail).toHaveAttribute("data-thread-id", threadId);
});
