import { createTenant, expect, test } from "./fixtures";
import { parseOt } from "./pages/usage-page";

/** local-chat-latest's catalog prices, O₮ per 1M tokens (no cached input from the local models). */
const LOCAL_PRICES = { input: 100, output: 400 };

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The offline model's deterministic answer to a message (CONTRACT 7). */
const localReply = (message: string) =>
  new RegExp(
    `^You said: "${escapeRegExp(message)}" \\(\\d+ tokens\\)\\. This is a deterministic reply from the offline local model\\.$`,
  );

test("the playground streams an answer from local-chat-latest with its tokens, cost and latency; the usage page lists the call", async ({
  page,
  tenant,
  loginPage,
  playgroundPage,
  usagePage,
}) => {
  await loginPage.signInAs(tenant);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Playground" }).click();
  await expect(playgroundPage.heading).toBeVisible();

  // Usable models only (no provider key is set here: the offline ones); the offline model is the
  // default. The opt-in adds active models of providers without a key, never disabled ones.
  await expect(playgroundPage.modelPicker).toHaveValue("local-chat-latest");
  const usable = await playgroundPage.modelOptions();
  expect(usable).toContain("local-mini");
  expect(usable).not.toContain("or-claude-opus-4-1");
  await playgroundPage.includeModelsWithoutKey();
  const all = await playgroundPage.modelOptions();
  expect(all).toContain("or-claude-opus-4-1");
  expect(all).not.toContain("claude-opus-4-1");
  expect(all.length).toBeGreaterThan(usable.length);
  await expect(playgroundPage.modelPicker).toHaveValue("local-chat-latest");

  await expect(playgroundPage.profilePicker).toBeVisible();
  await playgroundPage.pickProfile("None");
  const first = `Hello from the playground, run ${Date.now()}`;
  const created = page.waitForResponse((res) => res.url().endsWith("/api/panel/playground/threads"));
  const response = page.waitForResponse((res) => /\/api\/panel\/playground\/threads\/[^/]+\/runs$/.test(res.url()));
  await playgroundPage.send(first);
  await expect(playgroundPage.userTexts.last()).toHaveText(first);

  // The chat is a thread holding the message, then a streaming run on it; "None" opts out of any
  // default profile with an explicit empty list.
  expect((await created).request().postDataJSON()).toMatchObject({ messages: [{ role: "user", content: first }] });
  const res = await response;
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toContain("text/event-stream");
  expect(res.request().postDataJSON()).toEqual({ model: "local-chat-latest", stream: true, profile_ids: [] });
  const threadId = ((await (await created).json()) as { id: string }).id;

  const answer = playgroundPage.answers.last();
  expect(await playgroundPage.settled(answer)).toBe("done");
  await expect(answer.getByTestId("answer-text")).toHaveText(localReply(first));
  await expect(answer).toHaveAttribute("data-model", "local-chat-latest");

  const one = await playgroundPage.stats(answer);
  expect(one.promptTokens).toBeGreaterThan(0);
  expect(one.completionTokens).toBeGreaterThan(0);
  expect(one.costOt).toBeGreaterThan(0);
  expect(one.costOt).toBeCloseTo(
    (one.promptTokens * LOCAL_PRICES.input + one.completionTokens * LOCAL_PRICES.output) / 1_000_000,
    6,
  );
  await expect(answer.getByTestId("answer-cost")).toHaveText(String(one.costOt));
  expect(one.ttftMs).toBeGreaterThanOrEqual(0);
  expect(one.totalMs).toBeGreaterThanOrEqual(one.ttftMs);

  // The next message goes into the same thread, so the run sees the whole conversation.
  const second = "And a second message";
  const appended = page.waitForResponse((res) =>
    res.url().endsWith(`/api/panel/playground/threads/${threadId}/messages`),
  );
  await playgroundPage.send(second);
  expect((await appended).request().postDataJSON()).toEqual({ role: "user", content: second });
  const answer2 = playgroundPage.answers.nth(1);
  expect(await playgroundPage.settled(answer2)).toBe("done");
  await expect(answer2.getByTestId("answer-text")).toHaveText(localReply(second));
  const two = await playgroundPage.stats(answer2);
  expect(two.promptTokens).toBeGreaterThan(one.promptTokens);
  await expect(page.getByTestId("session-totals")).toContainText(
    String(one.promptTokens + one.completionTokens + two.promptTokens + two.completionTokens),
  );

  // Both calls were billed: newest first, the ledger shows the second at the cost the playground showed.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Usage" }).click();
  await expect(usagePage.heading).toBeVisible();
  const rows = usagePage.rowsFor("api");
  await expect(rows.first()).toHaveAttribute("data-kind", "run");
  await expect(rows.first()).toContainText("local-chat-latest");
  await expect(rows.first()).toContainText(`${two.promptTokens} / ${two.completionTokens}`);
  expect(parseOt(await rows.first().getByTestId("ledger-amount").innerText())).toBe(-two.costOt);
  expect(parseOt(await rows.nth(1).getByTestId("ledger-amount").innerText())).toBe(-one.costOt);
});

test("a refused call shows the API's error inline: 402 for a company without credits", async ({
  loginPage,
  playgroundPage,
}) => {
  const broke = await createTenant({ creditsOt: 0 });
  await loginPage.signInAs(broke);
  await playgroundPage.goto();

  await playgroundPage.send("Will this be billed?");
  const answer = playgroundPage.answers.last();
  expect(await playgroundPage.settled(answer)).toBe("error");
  const alert = answer.getByRole("alert");
  await expect(alert).toContainText(/^Insufficient O₮ balance/);
  await expect(alert).toContainText("HTTP 402 · insufficient_balance");
  await expect(answer.getByTestId("answer-stats")).toHaveCount(0);

  // The message stays in the transcript and the composer is ready for another try.
  await expect(playgroundPage.userTexts).toHaveText(["Will this be billed?"]);
  await expect(playgroundPage.messageInput).toHaveValue("");
  await playgroundPage.messageInput.fill("Again");
  await expect(playgroundPage.sendButton).toBeEnabled();
});

const REFUSAL = "I can't help with that: the request was blocked by a content rule.";

test("a blocked turn names its rule, is left out of the conversation and does not block the next one", async ({
  request,
  cliKey,
  tenant,
  loginPage,
  playgroundPage,
}) => {
  const tag = Date.now().toString(36);
  const rule = `No PINs ${tag}`;
  const secret = `PIN-${tag}`;
  const { key } = await cliKey(["chat"]);
  const headers = { Authorization: `Bearer ${key}` };
  const made = await request.post("/v1/guardrails", {
    headers,
    data: { name: rule, stage: "input", match: { type: "keyword", pattern: secret }, action: "block" },
  });
  expect(made.status(), await made.text()).toBe(201);

  await loginPage.signInAs(tenant);
  await playgroundPage.goto();
  await playgroundPage.pickProfile("None");

  await playgroundPage.send("Hello before the secret");
  expect(await playgroundPage.settled(playgroundPage.answers.nth(0))).toBe("done");

  await playgroundPage.send(`my code is ${secret}`);
  const blocked = playgroundPage.answers.nth(1);
  expect(await playgroundPage.settled(blocked)).toBe("done");
  await expect(blocked.getByTestId("answer-text")).toHaveText(REFUSAL);
  const badge = playgroundPage.appliedRule(blocked, rule);
  await expect(badge).toHaveAttribute("data-action", "block");
  await expect(badge).toHaveText(`Blocked by ${rule} (input)`);
  const blockedMessage = playgroundPage.userMessages.nth(1);
  await expect(blockedMessage).toHaveAttribute("data-excluded", "true");
  await expect(blockedMessage.getByTestId("excluded-note")).toHaveText(`Not sent to the model: blocked by ${rule}`);
  const blockedRun = await playgroundPage.runOf(blocked);

  // The next message is answered: it goes to a new thread that holds the history without the blocked turn.
  const after = "And now something harmless";
  await playgroundPage.send(after);
  const next = playgroundPage.answers.nth(2);
  expect(await playgroundPage.settled(next)).toBe("done");
  await expect(next.getByTestId("answer-text")).toHaveText(localReply(after));
  await expect(next.getByTestId("applied-rule")).toHaveCount(0);
  await expect(playgroundPage.userMessages.nth(2)).toHaveAttribute("data-excluded", "false");
  await expect(playgroundPage.userMessages.nth(0)).toHaveAttribute("data-excluded", "false");

  const nextRun = await playgroundPage.runOf(next);
  expect(nextRun.threadId).not.toBe(blockedRun.threadId);
  const listed = await request.get(`/v1/threads/${nextRun.threadId}/messages?order=asc`, { headers });
  const contents = ((await listed.json()) as { data: { role: string; content: string }[] }).data.map(
    (m) => `${m.role}: ${m.content}`,
  );
  expect(contents[0]).toBe("user: Hello before the secret");
  expect(contents[2]).toBe(`user: ${after}`);
  expect(contents.join("\n")).not.toContain(secret);
  expect(contents.join("\n")).not.toContain(REFUSAL);

  // Both runs exist as the transcript says: the blocked one with its rule, the next one without.
  const run = async (r: { threadId: string; runId: string }) =>
    (await (await request.get(`/v1/threads/${r.threadId}/runs/${r.runId}`, { headers })).json()) as {
      applied_rules: { name: string; action: string }[];
    };
  expect((await run(blockedRun)).applied_rules).toEqual([expect.objectContaining({ name: rule, action: "block" })]);
  expect((await run(nextRun)).applied_rules).toEqual([]);
});

test("a profile picked in the playground runs its server-side tool: the call and its result inline, and a link to the run's steps", async ({
  page,
  request,
  cliKey,
  tenant,
  loginPage,
  playgroundPage,
  threadsPage,
}) => {
  test.setTimeout(120_000);
  const tag = Date.now().toString(36);
  const tool = `add_${tag}`;
  const profile = `Calculator ${tag}`;
  const { key } = await cliKey(["chat"]);
  const headers = { Authorization: `Bearer ${key}` };
  const madeTool = await request.post("/v1/tools", {
    headers,
    timeout: 60_000,
    data: {
      name: tool,
      description: "Adds two numbers",
      json_schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
      python_code: `def ${tool}(a, b):\n    return a + b\n`,
    },
  });
  expect(madeTool.status(), await madeTool.text()).toBe(201);
  const madeProfile = await request.post("/v1/profiles", {
    headers,
    data: { name: profile, system_prompt: "Use the calculator.", allowed_tool_names: [tool] },
  });
  expect(madeProfile.status(), await madeProfile.text()).toBe(201);

  await loginPage.signInAs(tenant);
  await playgroundPage.goto();
  expect(await playgroundPage.profileOptions()).toEqual(expect.arrayContaining(["None", profile]));
  const ask = `call ${tool} {"a": 2, "b": 40}`;

  // Without the profile the tool is not offered: the model just answers.
  await playgroundPage.pickProfile("None");
  await playgroundPage.send(ask);
  const plain = playgroundPage.answers.nth(0);
  expect(await playgroundPage.settled(plain)).toBe("done");
  await expect(plain.getByTestId("tool-call")).toHaveCount(0);

  await playgroundPage.pickProfile(profile);
  await playgroundPage.send(ask);
  const answer = playgroundPage.answers.nth(1);
  expect(await playgroundPage.settled(answer)).toBe("done");
  await expect(answer.getByTestId("answer-profile")).toContainText(profile);
  await expect(answer.getByTestId("answer-text")).toContainText("42");

  // The call is collapsed until opened.
  const call = playgroundPage.toolCall(answer, tool);
  await expect(call).toHaveCount(1);
  await expect(call.getByTestId("tool-call-result")).toBeHidden();
  await call.getByText(tool).click();
  await expect(call.getByTestId("tool-call-args")).toContainText('"b": 40');
  await expect(call.getByTestId("tool-call-result")).toHaveText("42");

  const { threadId, runId } = await playgroundPage.runOf(answer);
  const stored = await request.get(`/v1/threads/${threadId}/runs/${runId}`, { headers });
  expect(stored.status()).toBe(200);
  expect(((await stored.json()) as { tool_calls: unknown[] }).tool_calls).toEqual([
    { name: tool, args: { a: 2, b: 40 }, result: 42 },
  ]);

  await playgroundPage.stepsLink(answer).click();
  await expect(page).toHaveURL(
    (url) =>
      url.pathname === "/threads" &&
      url.searchParams.get("thread") === threadId &&
      url.searchParams.get("run") === runId,
  );
  // The run is the thread's newest, so the Threads page shows its steps.
  await expect(threadsPage.runDetail).toHaveAttribute("data-run-id", runId);
  await expect(threadsPage.step("tool_call")).toHaveCount(1);
  await expect(threadsPage.step("tool_call").getByTestId("step-detail")).toContainText(tool);
});
