import { expect, test } from "./fixtures";

const SCHEMA = JSON.stringify(
  { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  null,
  2,
);

test("the tool editor checks the schema as you type and says only the standard library is available", async ({
  tenant,
  loginPage,
  toolsPage,
}) => {
  await loginPage.signInAs(tenant);
  await toolsPage.goto();
  await toolsPage.openEditor({
    name: "typing_check",
    description: "d",
    schema: SCHEMA,
    code: "def typing_check(a, b):\n    return a\n",
  });
  await expect(toolsPage.schemaStatus).toHaveAttribute("data-status", "valid");
  await toolsPage.dialog.getByLabel("Arguments (JSON Schema)").fill('{"type": "objekt"}');
  await expect(toolsPage.schemaStatus).toHaveAttribute("data-status", "invalid");
  await expect(toolsPage.schemaStatus).toContainText("json_schema");
  await toolsPage.dialog.getByLabel("Arguments (JSON Schema)").fill("{ not json");
  await expect(toolsPage.schemaStatus).toContainText("Not valid JSON");
  await expect(toolsPage.dialog.getByTestId("stdlib-note")).toContainText("only the Python standard library");
  // Arguments the draft schema refuses never reach the sandbox: the box shows the error.
  await toolsPage.dialog.getByLabel("Arguments (JSON Schema)").fill(SCHEMA);
  await expect(toolsPage.schemaStatus).toHaveAttribute("data-status", "valid");
  const refused = await toolsPage.testRun('{"a": 1}');
  await expect(refused).toHaveAttribute("data-ok", "false");
  // The outcome sits below the editors: the dialog brings it into view.
  await expect(refused).toBeInViewport();
  await expect(refused.getByTestId("tool-run-error")).toContainText("required property 'b'");
});

/** The real sandbox checks and runs the code, and the tool loop calls it in a run. */
test("create a tool in the editor, test-run it, bind it to a profile, run a thread with that profile and see the tool call in its run steps", async ({
  request,
  tenant,
  cliKey,
  loginPage,
  toolsPage,
  profilesPage,
  threadsPage,
}) => {
  test.setTimeout(120_000);
  const tag = Date.now().toString(36);
  const tool = `add_${tag}`;
  const profile = `Calculator ${tag}`;
  await loginPage.signInAs(tenant);
  await toolsPage.goto();

  await toolsPage.openEditor({
    name: tool,
    description: "Adds two numbers",
    schema: SCHEMA,
    code: `def ${tool}(a, b):\n    print("adding", a, b)\n    return a + b\n`,
  });
  await expect(toolsPage.schemaStatus).toHaveAttribute("data-status", "valid");
  const result = await toolsPage.testRun('{"a": 2, "b": 40}');
  await expect(result).toHaveAttribute("data-ok", "true");
  await expect(result.getByTestId("tool-run-value")).toHaveText("42");
  await expect(result.getByTestId("tool-run-stdout")).toContainText("adding 2 40");
  await expect(result.getByTestId("tool-run-time")).toContainText("ms CPU");
  await toolsPage.save(60_000);
  await expect(toolsPage.row(tool).getByRole("switch")).toHaveAttribute("aria-checked", "true");

  await profilesPage.goto();
  await profilesPage.createProfile({ name: profile, systemPrompt: "Use the calculator.", model: "local-chat-latest" });
  await profilesPage.bindTools(profile, [tool]);
  expect(await profilesPage.offeredTools(profile)).toContainEqual({ name: tool, checked: true });
  const profileId = await profilesPage.row(profile).getAttribute("data-profile-id");

  // A run with that profile: the local model calls the tool when told to (CONTRACT 7).
  const { key } = await cliKey(["chat"]);
  const headers = { Authorization: `Bearer ${key}` };
  const created = await request.post("/v1/threads", {
    headers,
    data: { messages: [{ role: "user", content: `call ${tool} {"a": 2, "b": 40}` }] },
  });
  expect(created.status()).toBe(201);
  const threadId = ((await created.json()) as { id: string }).id;
  const ran = await request.post(`/v1/threads/${threadId}/runs`, {
    headers,
    data: { model: "local-mini", profile_ids: [profileId] },
    timeout: 60_000,
  });
  expect(ran.status(), await ran.text()).toBe(200);
  const run = (await ran.json()) as { id: string; tool_calls: unknown[] };
  expect(run.tool_calls).toEqual([{ name: tool, args: { a: 2, b: 40 }, result: 42 }]);

  await threadsPage.goto();
  await threadsPage.open(threadId);
  await expect(threadsPage.runDetail).toHaveAttribute("data-run-id", run.id);
  await expect(threadsPage.step("tool_call")).toHaveCount(1);
  await expect(threadsPage.step("tool_call").getByTestId("step-detail")).toContainText(tool);
  await expect(threadsPage.step("tool_call").getByTestId("step-detail")).toContainText("42");

  // Deactivated, it is no longer offered in the picker.
  await toolsPage.goto();
  await toolsPage.row(tool).getByRole("switch").click();
  await expect(toolsPage.row(tool).getByRole("switch")).toHaveAttribute("aria-checked", "false");
  await profilesPage.goto();
  expect((await profilesPage.offeredTools(profile)).map((t) => t.name)).not.toContain(tool);
});
