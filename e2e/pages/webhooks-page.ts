import { expect, type Locator, type Page } from "@playwright/test";

/** /agents and /webhooks: create an agent, an endpoint bound to it, and read the event log. */
export class WebhooksPage {
  readonly secretUrl: Locator;

  constructor(readonly page: Page) {
    this.secretUrl = page.getByTestId("webhook-url");
  }

  async createAgent(name: string, profile: string, topics = ""): Promise<void> {
    await this.page.goto("/agents");
    await expect(this.page.getByRole("heading", { level: 1, name: "Agents" })).toBeVisible();
    await this.page.getByLabel("Name").fill(name);
    await this.page.getByLabel("Profile").selectOption({ label: profile });
    await this.page.getByLabel("Topics").fill(topics);
    await this.page.getByRole("button", { name: "Create agent" }).click();
    await expect(this.page.getByTestId("agent-row").filter({ hasText: name })).toBeVisible();
  }

  /** Creates an endpoint bound to the agent; returns its URL as the panel shows it once. */
  async createEndpoint(agent: string, name: string): Promise<string> {
    await this.page.goto("/webhooks");
    await this.page.getByLabel("Agent").selectOption({ label: agent });
    await this.page.getByLabel("Name").fill(name);
    await this.page.getByRole("button", { name: "Create endpoint" }).click();
    await expect(this.secretUrl).toBeVisible();
    return (await this.secretUrl.textContent())!.trim();
  }

  eventRow(eventId: string): Locator {
    return this.page.getByTestId("event-row").filter({ hasText: eventId });
  }
}
