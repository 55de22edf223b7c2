import { expect, type Locator, type Page } from "@playwright/test";

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

/** The panel's frame (company name and balance) and the page-wide checks the screenshots make. */
export class PanelFrame {
  constructor(readonly page: Page) {}

  /** The frame's block on this viewport (the sidebar's on a desktop, the top bar's on a phone). */
  get company(): Locator {
    return this.page.getByTestId("company-frame").filter({ visible: true });
  }

  get companyName(): Locator {
    return this.company.getByTestId("company-name");
  }

  get balance(): Locator {
    return this.company.getByTestId("company-balance");
  }

  /** Opens `path` and waits for its h1 (`heading`) and for the network to settle. */
  async open(path: string, heading: string | RegExp): Promise<void> {
    await this.page.goto(path);
    await expect(this.page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    await this.page.waitForLoadState("networkidle");
  }

  /** Widths past the viewport: the document's, and each table's inside its scroll box. */
  async overflow(): Promise<{ viewport: number; document: number; tables: number[] }> {
    return this.page.evaluate(() => ({
      viewport: window.innerWidth,
      document: document.documentElement.scrollWidth,
      tables: [...document.querySelectorAll("table")]
        .map((t) => t.parentElement!)
        .filter((box) => box.scrollWidth > box.clientWidth + 1)
        .map((box) => box.scrollWidth - box.clientWidth),
    }));
  }

  /** `fullPage` false: only what the viewport shows (a dialog's state as the user sees it). */
  async screenshot(name: string, fullPage = true): Promise<void> {
    await this.page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage });
  }
}
