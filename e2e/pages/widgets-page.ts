import { expect, type Locator, type Page } from "@playwright/test";

/** The panel's /widgets page: a widget key, and per view a live preview and its snippets. */
export class WidgetsPage {
  readonly heading: Locator;
  readonly createKeyButton: Locator;
  readonly keyInput: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Widgets", level: 1 });
    this.createKeyButton = page.getByTestId("create-widget-key");
    this.keyInput = page.getByTestId("widget-key");
  }

  async goto(): Promise<void> {
    await this.page.goto("/widgets");
    await expect(this.heading).toBeVisible();
  }

  viewCard(name: string): Locator {
    return this.page.getByRole("region", { name, exact: true });
  }

  preview(card: Locator): Locator {
    return card.getByTestId("widget-preview").locator("cockpit-widget");
  }
}
