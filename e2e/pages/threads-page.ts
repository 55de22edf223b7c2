import { expect, type Locator, type Page } from "@playwright/test";

export class ThreadsPage {
  readonly heading: Locator;
  readonly search: Locator;
  readonly detail: Locator;
  readonly messages: Locator;
  readonly runs: Locator;
  readonly runDetail: Locator;
  readonly steps: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Threads", level: 1 });
    this.search = page.getByRole("searchbox", { name: "Search threads" });
    this.detail = page.getByTestId("thread-detail");
    this.messages = page.getByTestId("message-row");
    this.runs = page.getByTestId("run-row");
    this.runDetail = page.getByTestId("run-detail");
    this.steps = page.getByTestId("run-step");
  }

  async goto(): Promise<void> {
    await this.page.goto("/threads");
    await expect(this.heading).toBeVisible();
  }

  row(threadId: string): Locator {
    return this.page.locator(`[data-testid="thread-row"][data-thread-id="${threadId}"]`);
  }

  async sourceTab(label: "All" | "API" | "Completions" | "Webhook"): Promise<void> {
    const tab = this.page.getByRole("tab", { name: label, exact: true });
    await tab.click();
    await expect(tab).toHaveAttribute("aria-selected", "true");
  }

  /** Opens a thread from the list (it must be on the first page of the current tab). */
  async open(threadId: string): Promise<void> {
    await this.row(threadId).click();
    await expect(this.detail).toHaveAttribute("data-thread-id", threadId);
  }

  async findById(threadId: string): Promise<void> {
    await this.searchFor(threadId);
  }

  /** Text finds threads whose messages contain it; a `thread_…` id finds that thread. */
  async searchFor(text: string): Promise<void> {
    await this.search.fill(text);
    await this.page.getByRole("button", { name: "Search", exact: true }).click();
  }

  get rows(): Locator {
    return this.page.getByTestId("thread-row");
  }

  /** A deep link: the thread open on that run's steps (what the playground links to). */
  async gotoRun(threadId: string, runId: string): Promise<void> {
    await this.page.goto(`/threads?thread=${encodeURIComponent(threadId)}&run=${encodeURIComponent(runId)}`);
    await expect(this.heading).toBeVisible();
  }

  get candidates(): Locator {
    return this.step("retrieval").getByTestId("candidate-row");
  }

  run(runId: string): Locator {
    return this.page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
  }

  step(type: string): Locator {
    return this.runDetail.locator(`[data-testid="run-step"][data-step-type="${type}"]`);
  }
}
