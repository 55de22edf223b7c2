import { expect, type Locator, type Page } from "@playwright/test";

const SCOPES = ["chat", "view", "action", "admin"] as const;

export class KeysPage {
  readonly heading: Locator;
  readonly createButton: Locator;
  readonly createDialog: Locator;
  readonly secretDialog: Locator;
  readonly revokeDialog: Locator;
  readonly rows: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "API keys", level: 1 });
    this.createButton = page.getByTestId("create-key");
    this.createDialog = page.getByRole("dialog", { name: "Create API key" });
    this.secretDialog = page.getByRole("dialog", { name: "Save your API key" });
    this.revokeDialog = page.getByRole("dialog", { name: "Revoke API key" });
    this.rows = page.getByTestId("key-row");
  }

  async goto(): Promise<void> {
    await this.page.goto("/sdk-keys");
    await expect(this.heading).toBeVisible();
  }

  /** Fills and submits the create dialog; leaves the secret dialog open and returns the secret. */
  async createKey(args: {
    name: string;
    scopes: (typeof SCOPES)[number][];
    rateLimitPerMinute?: number;
  }): Promise<string> {
    await this.createButton.click();
    await expect(this.createDialog).toBeVisible();
    await this.createDialog.getByLabel("Name").fill(args.name);
    for (const scope of SCOPES) {
      await this.createDialog
        .getByRole("checkbox", { name: scope, exact: true })
        .setChecked(args.scopes.includes(scope));
    }
    if (args.rateLimitPerMinute !== undefined) {
      await this.createDialog.getByLabel("Rate limit").fill(String(args.rateLimitPerMinute));
    }
    await this.createDialog.getByRole("button", { name: "Create key" }).click();
    await expect(this.secretDialog).toBeVisible();
    return this.secretDialog.getByTestId("new-key-secret").inputValue();
  }

  async copySecret(): Promise<void> {
    await this.secretDialog.getByRole("button", { name: "Copy" }).click();
    await expect(this.secretDialog.getByRole("button", { name: "Copied" })).toBeVisible();
  }

  async closeSecretDialog(): Promise<void> {
    await this.secretDialog.getByRole("button", { name: "Done" }).click();
    await expect(this.secretDialog).toBeHidden();
  }

  row(name: string): Locator {
    return this.rows.filter({ has: this.page.getByText(name, { exact: true }) });
  }

  status(name: string): Locator {
    return this.row(name).getByTestId("key-status");
  }

  async revoke(name: string): Promise<void> {
    await this.row(name)
      .getByRole("button", { name: `Revoke ${name}` })
      .click();
    await expect(this.revokeDialog).toBeVisible();
    await this.revokeDialog.getByRole("button", { name: "Revoke key" }).click();
    await expect(this.revokeDialog).toBeHidden();
  }
}
