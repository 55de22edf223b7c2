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

  // Active, visible models only; the offline model is the default.
  await expect(playgroundPage.modelPicker).toHaveValue("local-chat-latest");
  const options = await playgroundPage.modelOptions();
  expect(options).toContain("local-mini");
  expect(options).toContain("or-claude-opus-4-1");
  expect(options).not.toContain("claude-opus-4-1");

  const first = `Hello from the playground, run ${Date.now()}`;
  const response = page.waitForResponse((res) => res.url().endsWith("/api/panel/playground"));
  await playgroundPage.send(first);
  await expect(playgroundPage.userMessages.last()).toHaveText(first);

  // An SSE stream with a usage frame, like /v1/chat/completions with stream_options.include_usage.
  const res = await response;
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toContain("text/event-stream");
  expect(res.request().postDataJSON()).toMatchObject({
    model: "local-chat-latest",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: first }],
  });

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

  // The conversation goes back with the next message: a longer prompt, an answer to the new message.
  const second = "And a second message";
  const secondResponse = page.waitForResponse((res) => res.url().endsWith("/api/panel/playground"));
  await playgroundPage.send(second);
  const sent = (await secondResponse).request().postDataJSON() as { messages: { role: string; content: string }[] };
  expect(sent.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  expect(sent.messages[1]!.content).toMatch(localReply(first));
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
  const rows = usagePage.rowsFor("completions");
  await expect(rows.first()).toHaveAttribute("data-kind", "completion");
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
  await expect(alert).toContainText(/^Insufficient O₮ balance: this call needs up to [\d.]+ O₮\./);
  await expect(alert).toContainText("HTTP 402 · insufficient_balance");
  await expect(answer.getByTestId("answer-stats")).toHaveCount(0);

  // The message stays in the transcript and the composer is ready for another try.
  await expect(playgroundPage.userMessages).toHaveText(["Will this be billed?"]);
  await expect(playgroundPage.messageInput).toHaveValue("");
  await playgroundPage.messageInput.fill("Again");
  await expect(playgroundPage.sendButton).toBeEnabled();
});
