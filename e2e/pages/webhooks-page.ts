import { expect, type Locator, type Page } from "@playwright/test";

/** /agents and /webhooks: create and edit an agent, an endpoint bound to it (paused, resumed), and read the event log. */
export class WebhooksPage {
  readonly secretUrl: Locator;
  readonly agentDialog: Locator;

  constructor(readonly page: Page) {
    this.secretUrl = page.getByTestId("webhook-url");
    this.agentDialog = page.getByTestId("agent-dialog");
  }

  async createAgent(name: string, profile: string, topics = ""): Promise<void> {
    await this.page.goto("/agents");
    await expect(this.page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();
    await this.page.getByLabel("Name", { exact: true }).fill(name);
    await this.page.getByLabel("Profile", { exact: true }).selectOption({ label: profile });
    await this.page.getByLabel("Topics", { exact: true }).fill(topics);
    await this.page.getByRole("button", { name: "Create agent" }).click();
    await expect(this.agentRow(name)).toBeVisible();
  }

  agentRow(name: string): Locator {
    return this.page.getByTestId("agent-row").filter({ hasText: name });
  }

  /** On /agents: opens the agent's Edit dialog, sets the fields given, saves, and waits for the dialog to close. */
  async editAgent(current: string, change: { name?: string; topics?: string }): Promise<void> {
    await this.agentRow(current).getByTestId("edit-agent").click();
    await expect(this.agentDialog).toBeVisible();
    await expect(this.agentDialog.getByLabel("Name", { exact: true })).toHaveValue(current);
    if (change.name !== undefined) await this.agentDialog.getByLabel("Name", { exact: true }).fill(change.name);
    if (change.topics !== undefined) await this.agentDialog.getByLabel("Topics", { exact: true }).fill(change.topics);
    await this.agentDialog.getByRole("button", { name: "Save agent" }).click();
    await expect(this.agentDialog).toBeHidden();
  }

  /** Creates an endpoint bound to the agent; returns its URL as the panel shows it once. */
  async createEndpoint(agent: string, name: string): Promise<string> {
    await this.page.goto("/webhooks");
    await this.page.getByLabel("Agent", { exact: true }).selectOption({ label: agent });
    await this.page.getByLabel("Name", { exact: true }).fill(name);
    await this.page.getByRole("button", { name: "Create endpoint" }).click();
    await expect(this.secretUrl).toBeVisible();
    return (await this.secretUrl.textContent())!.trim();
  }

  webhookRow(name: string): Locator {
    return this.page.getByTestId("webhook-row").filter({ hasText: name });
  }

  /** On /webhooks: presses the endpoint's Pause or Resume button and waits for its status badge to show the new state. */
  async setEndpointActive(name: string, active: boolean): Promise<void> {
    const row = this.webhookRow(name);
    await row.getByRole("button", { name: active ? "Resume" : "Pause", exact: true }).click();
    await expect(row.getByTestId("webhook-status")).toHaveText(active ? "active" : "paused");
  }

  eventRow(eventId: string): Locator {
    return this.page.getByTestId("event-row").filter({ hasText: eventId });
  }
}
