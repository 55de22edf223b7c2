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

test("thread previews and search by content; a deep link opens a run's steps with its retrieval candidates as a table", async ({
  request,
  tenant,
  cliKey,
  loginPage,
  threadsPage,
}) => {
  // A document to index (a background job) and three runs.
  test.slow();
  const { key } = await cliKey(["chat"]);
  const headers = { Authorization: `Bearer ${key}` };
  const tag = Date.now().toString(36);
  const call = async <T>(method: "get" | "post", path: string, data?: unknown): Promise<T> => {
    const res = await request[method](path, { headers, data });
    expect(res.ok(), `${method} ${path}: ${await res.text()}`).toBe(true);
    return (await res.json()) as T;
  };

  const collection = await call<{ id: string }>("post", "/v1/knowledge", { name: `Plant ${tag}`, description: "" });
  const uploaded = await request.post(`/v1/knowledge/${collection.id}/documents`, {
    headers,
    multipart: {
      file: {
        name: `valves-${tag}.txt`,
        mimeType: "text/plain",
        buffer: Buffer.from(
          "Maintenance notes.\n\nThe spare valve key for turbine nine hangs in locker forty-two.\n\nBelts are checked weekly.",
        ),
      },
    },
  });
  expect(uploaded.status(), await uploaded.text()).toBe(202);
  const documentId = ((await uploaded.json()) as { id: string }).id;
  await expect
    .poll(
      async () =>
        (await call<{ status: string }>("get", `/v1/knowledge/${collection.id}/documents/${documentId}`)).status,
      {
        timeout: 60_000,
      },
    )
    .toBe("ready");
  const profile = await call<{ id: string }>("post", "/v1/profiles", {
    name: `Plant ${tag}`,
    knowledge_base_ids: [collection.id],
    use_kb: true,
  });

  const question = `Where is the spare valve key for turbine nine? (${tag})`;
  const thread = await call<{ id: string }>("post", "/v1/threads", {
    messages: [
      { role: "system", content: "Answer briefly." },
      { role: "user", content: question },
    ],
  });
  const withKb = await call<{ id: string; content: string }>("post", `/v1/threads/${thread.id}/runs`, {
    model: "local-mini",
    profile_ids: [profile.id],
  });
  expect(withKb.content).toContain("locker forty-two");
  // A newer run without retrieval: the deep link must open the older one, not the newest.
  const newest = await call<{ id: string }>("post", `/v1/threads/${thread.id}/runs`, {
    model: "local-mini",
    profile_ids: [profile.id],
    use_kb: false,
  });
  const other = await call<{ id: string }>("post", "/v1/threads", {
    messages: [{ role: "user", content: `Lunch hours, please (${tag})` }],
  });

  await loginPage.signInAs(tenant);
  await threadsPage.goto();

  // Search by text in any message (the answer too), with the first user message as the preview.
  await threadsPage.searchFor(`LOCKER FORTY-TWO`);
  await expect(threadsPage.row(thread.id)).toBeVisible();
  await expect(threadsPage.row(other.id)).toHaveCount(0);
  await expect(threadsPage.row(thread.id).getByTestId("thread-preview")).toHaveText(question);
  await expect(threadsPage.row(thread.id).getByTestId("thread-match")).toContainText("locker forty-two");
  await threadsPage.searchFor(tag);
  await expect(threadsPage.rows).toHaveCount(2);
  await expect(threadsPage.row(other.id).getByTestId("thread-preview")).toHaveText(`Lunch hours, please (${tag})`);
  // Wildcards are text: nothing says "%tag".
  await threadsPage.searchFor(`%${tag}`);
  await expect(threadsPage.rows).toHaveCount(0);
  await expect(threadsPage.page.getByTestId("threads-empty")).toContainText(`No thread mentions “%${tag}”`);

  // Opening a thread shows its id with a copy button; a run's id too.
  await threadsPage.searchFor(tag);
  await threadsPage.open(thread.id);
  await expect(threadsPage.detail.getByRole("button", { name: `Copy thread id ${thread.id}` })).toBeVisible();
  await expect(threadsPage.runDetail).toHaveAttribute("data-run-id", newest.id);
  await expect(threadsPage.step("retrieval")).toHaveCount(0);

  // The deep link opens the older run's steps: retrieval candidates as a table with a readable relevance.
  await threadsPage.gotoRun(thread.id, withKb.id);
  await expect(threadsPage.detail).toHaveAttribute("data-thread-id", thread.id);
  await expect(threadsPage.runDetail).toHaveAttribute("data-run-id", withKb.id);
  await expect(threadsPage.runDetail.getByRole("button", { name: `Copy run id ${withKb.id}` })).toBeVisible();
  await expect(threadsPage.candidates.first()).toBeVisible();
  const top = threadsPage.candidates.first();
  await expect(top.getByTestId("candidate-file")).toHaveText(`valves-${tag}.txt`);
  await expect(top.getByTestId("candidate-used")).toHaveText("used");
  await expect(top.getByTestId("candidate-bm25")).toContainText("#1");
  const relevance = Number(await top.getByTestId("relevance").getAttribute("data-value"));
  expect(relevance).toBeGreaterThan(0);
  expect(relevance).toBeLessThanOrEqual(1);
  // No raw JSON line for the candidates: the step's own fields stay, the JSON is behind "Raw JSON".
  await expect(threadsPage.step("retrieval").getByTestId("step-detail")).not.toContainText('"document_id"');
});
