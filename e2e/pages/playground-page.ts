import { expect, type Locator, type Page } from "@playwright/test";
import { parseOt } from "./usage-page";

export class PlaygroundPage {
  readonly heading: Locator;
  readonly modelPicker: Locator;
  readonly profilePicker: Locator;
  readonly systemPrompt: Locator;
  readonly messageInput: Locator;
  readonly sendButton: Locator;
  readonly stopButton: Locator;
  readonly transcript: Locator;
  readonly answers: Locator;
  readonly userMessages: Locator;
  /** The text of each user message, without the note of a blocked one. */
  readonly userTexts: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Playground", level: 1 });
    this.modelPicker = page.getByLabel("Model", { exact: true });
    this.profilePicker = page.getByLabel("Profile", { exact: true });
    this.systemPrompt = page.getByLabel("System prompt");
    this.messageInput = page.getByRole("textbox", { name: "Message" });
    this.sendButton = page.getByRole("button", { name: "Send" });
    this.stopButton = page.getByRole("button", { name: "Stop" });
    this.transcript = page.getByRole("log", { name: "Conversation" });
    this.answers = this.transcript.locator('[data-testid="chat-message"][data-role="assistant"]');
    this.userMessages = this.transcript.locator('[data-testid="chat-message"][data-role="user"]');
    this.userTexts = this.userMessages.getByTestId("user-text");
  }

  async goto(): Promise<void> {
    await this.page.goto("/playground");
    await expect(this.heading).toBeVisible();
  }

  async modelOptions(): Promise<string[]> {
    return this.modelPicker.locator("option").evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
  }

  async includeModelsWithoutKey(): Promise<void> {
    await this.page.getByTestId("playground-all-models").check();
  }

  async profileOptions(): Promise<string[]> {
    return this.profilePicker.locator("option").allInnerTexts();
  }

  async pickProfile(label: string): Promise<void> {
    await this.profilePicker.selectOption({ label });
  }

  /** The badge of a guardrail rule that fired on an answer. */
  appliedRule(answer: Locator, name: string): Locator {
    return answer.locator(`[data-testid="applied-rule"][data-rule-name="${name}"]`);
  }

  toolCall(answer: Locator, name: string): Locator {
    return answer.locator(`[data-testid="tool-call"][data-tool-name="${name}"]`);
  }

  stepsLink(answer: Locator): Locator {
    return answer.getByRole("link", { name: "See the run's steps" });
  }

  /** The run an answer came from, as the transcript records it. */
  async runOf(answer: Locator): Promise<{ threadId: string; runId: string }> {
    return {
      threadId: (await answer.getAttribute("data-thread-id")) ?? "",
      runId: (await answer.getAttribute("data-run-id")) ?? "",
    };
  }

  async send(text: string): Promise<void> {
    await this.messageInput.fill(text);
    await this.sendButton.click();
  }

  /** Waits until the answer is no longer streaming; returns its final state. */
  async settled(answer: Locator): Promise<string> {
    await expect(answer).toHaveAttribute("data-state", /^(done|stopped|error)$/);
    return (await answer.getAttribute("data-state"))!;
  }

  async stats(
    answer: Locator,
  ): Promise<{ promptTokens: number; completionTokens: number; costOt: number; ttftMs: number; totalMs: number }> {
    const num = async (testId: string) => parseOt(await answer.getByTestId(testId).innerText());
    const attr = async (testId: string, name: string) => Number(await answer.getByTestId(testId).getAttribute(name));
    return {
      promptTokens: await num("answer-prompt-tokens"),
      completionTokens: await num("answer-completion-tokens"),
      costOt: await attr("answer-cost", "data-ot"),
      ttftMs: await attr("answer-ttft", "data-ms"),
      totalMs: await attr("answer-total", "data-ms"),
    };
  }
}
