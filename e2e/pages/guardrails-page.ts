import { expect, type Locator, type Page } from "@playwright/test";

export class GuardrailsPage {
  readonly heading: Locator;
  readonly createButton: Locator;
  readonly createDialog: Locator;
  readonly tryBox: Locator;
  readonly tryResult: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Guardrails", level: 1 });
    this.createButton = page.getByTestId("create-guardrail");
    this.createDialog = page.getByRole("dialog", { name: "Create guardrail rule" });
    this.tryBox = page.getByTestId("guardrail-try");
    this.tryResult = page.getByTestId("guardrail-try-result");
  }

  async goto(): Promise<void> {
    await this.page.goto("/guardrails");
    await expect(this.heading).toBeVisible();
  }

  row(name: string): Locator {
    return this.page.locator(`[data-testid="guardrail-row"][data-rule-name="${name}"]`);
  }

  async createRule(args: {
    name: string;
    stage: "input" | "output";
    matchType: "keyword" | "regex";
    pattern: string;
    action: "block" | "redact" | "flag";
  }): Promise<void> {
    await this.createButton.click();
    await expect(this.createDialog).toBeVisible();
    await this.createDialog.getByLabel("Name").fill(args.name);
    await this.createDialog.getByLabel("Stage").selectOption(args.stage);
    await this.createDialog.getByLabel("Match").selectOption(args.matchType);
    await this.createDialog.getByLabel("Action").selectOption(args.action);
    await this.createDialog.getByLabel("Pattern").fill(args.pattern);
    await this.createDialog.getByRole("button", { name: "Create rule" }).click();
    await expect(this.createDialog).toHaveCount(0);
    await expect(this.row(args.name)).toHaveCount(1);
  }

  async tryText(text: string, stage: "input" | "output"): Promise<void> {
    await this.tryBox.getByLabel("Sample text").fill(text);
    await this.tryBox.getByLabel("Stage").selectOption(stage);
    await this.tryBox.getByRole("button", { name: "Try it" }).click();
  }
}
