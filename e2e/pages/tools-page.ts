import { expect, type Locator, type Page } from "@playwright/test";

export class ToolsPage {
  readonly heading: Locator;
  readonly createButton: Locator;
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Tools", level: 1 });
    this.createButton = page.getByTestId("create-tool");
    this.dialog = page.getByTestId("tool-dialog");
  }

  async goto(): Promise<void> {
    await this.page.goto("/tools");
    await expect(this.heading).toBeVisible();
  }

  row(name: string): Locator {
    return this.page.locator(`[data-testid="tool-row"][data-tool-name="${name}"]`);
  }

  /** Opens the create dialog and fills the editor (replacing the template). */
  async openEditor(args: { name: string; description: string; schema: string; code: string }): Promise<void> {
    await this.createButton.click();
    await expect(this.dialog).toBeVisible();
    await this.dialog.getByLabel("Name").fill(args.name);
    await this.dialog.getByLabel("Description").fill(args.description);
    await this.dialog.getByLabel("Arguments (JSON Schema)").fill(args.schema);
    await this.dialog.getByLabel("Python code").fill(args.code);
  }

  get schemaStatus(): Locator {
    return this.dialog.getByTestId("schema-status");
  }

  async testRun(args: string): Promise<Locator> {
    await this.dialog.getByLabel("Run with these arguments").fill(args);
    await this.dialog.getByTestId("run-tool").click();
    const result = this.dialog.getByTestId("tool-run-result");
    // The first call of a company boots its sandbox process (about 2 s alone, far more on a loaded machine).
    await expect(result).toBeVisible({ timeout: 60_000 });
    return result;
  }

  /** Saving checks the code in the sandbox: `timeout` for a cold one. */
  async save(timeout = 10_000): Promise<void> {
    await this.dialog.getByTestId("save-tool").click();
    await expect(this.dialog).toHaveCount(0, { timeout });
  }
}
