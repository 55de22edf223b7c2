import { expect, type Locator, type Page } from "@playwright/test";

/** /docs/api: Scalar's reference rendered from /v1/openapi.json. */
export class ApiReferencePage {
  constructor(readonly page: Page) {}

  /** An operation's heading, by its summary ("Create chat completion"). */
  operation(summary: string): Locator {
    return this.page.getByRole("heading", { name: summary, exact: true }).first();
  }

  /** Opens the page and waits until Scalar has drawn `summary`'s operation. */
  async open(summary: string): Promise<void> {
    await this.page.goto("/docs/api");
    await expect(this.operation(summary)).toBeVisible({ timeout: 30_000 });
  }

  async screenshot(name: string): Promise<void> {
    await this.page.screenshot({ path: `test-results/screenshots/${name}.png` });
  }
}
