import { expect, type Locator, type Page } from "@playwright/test";

export class ModelsPage {
  readonly heading: Locator;
  readonly search: Locator;
  readonly groups: Locator;
  readonly rows: Locator;
  readonly pricesNote: Locator;
  readonly resetDialog: Locator;
  readonly showAll: Locator;
  readonly summary: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Models", level: 1 });
    this.search = page.getByRole("searchbox", { name: "Search models" });
    this.groups = page.getByTestId("model-group");
    this.rows = page.getByTestId("model-row");
    this.pricesNote = page.getByTestId("prices-note");
    this.resetDialog = page.getByRole("dialog", { name: "Reset to catalog" });
    this.showAll = page.getByRole("switch", { name: "Show all models" });
    this.summary = page.getByTestId("models-summary");
  }

  async goto(): Promise<void> {
    await this.page.goto("/models");
    await expect(this.heading).toBeVisible();
  }

  /** The page with "Show all models" on (kept in the URL). */
  async gotoAll(): Promise<void> {
    await this.page.goto("/models?all=1");
    await expect(this.heading).toBeVisible();
    await expect(this.showAll).toHaveAttribute("aria-checked", "true");
  }

  /** Brings one slug's row on screen: a search opens its group in full. */
  async reveal(slug: string): Promise<void> {
    await this.search.fill(slug);
    await expect(this.row(slug)).toBeVisible();
  }

  groupStatus(id: string): Locator {
    return this.group(id).getByTestId("group-status");
  }

  groupToggle(id: string): Locator {
    return this.group(id).getByTestId("group-toggle");
  }

  group(id: string): Locator {
    return this.page.locator(`[data-testid="model-group"][data-group="${id}"]`);
  }

  groupCount(id: string): Locator {
    return this.group(id).getByTestId("group-count");
  }

  row(slug: string): Locator {
    return this.page.locator(`[data-testid="model-row"][data-model-id="${slug}"]`);
  }

  visibleSwitch(slug: string): Locator {
    return this.row(slug).getByRole("switch", { name: `Show ${slug}` });
  }

  enabledSwitch(slug: string): Locator {
    return this.row(slug).getByRole("switch", { name: `Enable ${slug}` });
  }

  /** Flips a switch and waits for the server's answer: there is no optimistic update, so the switch moves once the refetch lands. */
  private async setSwitch(toggle: Locator, on: boolean): Promise<void> {
    if ((await toggle.getAttribute("aria-checked")) !== String(on)) await toggle.click();
    await expect(toggle).toHaveAttribute("aria-checked", String(on));
    await expect(toggle).toBeEnabled();
  }

  async setVisible(slug: string, visible: boolean): Promise<void> {
    await this.setSwitch(this.visibleSwitch(slug), visible);
  }

  async setEnabled(slug: string, enabled: boolean): Promise<void> {
    await this.setSwitch(this.enabledSwitch(slug), enabled);
  }

  async resetToCatalog(slug: string): Promise<void> {
    await this.row(slug)
      .getByRole("button", { name: `Reset ${slug} to catalog` })
      .click();
    await expect(this.resetDialog).toBeVisible();
    await this.resetDialog.getByRole("button", { name: "Reset to catalog" }).click();
    await expect(this.resetDialog).toBeHidden();
  }

  /** The O₮ prices a row shows, read-only (its cells carry the exact number). */
  async rowPrices(slug: string): Promise<{ input: number; cached_input: number; output: number }> {
    const row = this.row(slug);
    const read = async (testId: string) => Number(await row.getByTestId(testId).getAttribute("data-ot"));
    return {
      input: await read("price-input"),
      cached_input: await read("price-cached"),
      output: await read("price-output"),
    };
  }
}
