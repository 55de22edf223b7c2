import { expect, type Locator, type Page } from "@playwright/test";

/** "1,234.5", "+100", "−12.5" (true minus sign) → number. */
export function parseOt(text: string): number {
  return Number(text.trim().replace(/,/g, "").replace("\u2212", "-"));
}

export class UsagePage {
  readonly heading: Locator;
  readonly balance: Locator;
  readonly balanceUsd: Locator;
  readonly rows: Locator;
  readonly sourceFilter: Locator;
  readonly chart: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Usage", level: 1 });
    this.balance = page.getByTestId("balance-ot");
    this.balanceUsd = page.getByTestId("balance-ot-usd");
    this.rows = page.getByTestId("ledger-row");
    this.sourceFilter = page.getByLabel("Source", { exact: true });
    this.chart = page.getByTestId("daily-spend-chart");
  }

  async goto(): Promise<void> {
    await this.page.goto("/usage");
    await expect(this.heading).toBeVisible();
  }

  async reload(): Promise<void> {
    await this.page.reload();
    await expect(this.heading).toBeVisible();
  }

  /** The balance card as a number (the card shows it grouped: "1,234.5"). */
  async balanceOt(): Promise<number> {
    return parseOt(await this.balance.innerText());
  }

  rowsFor(source: string): Locator {
    return this.rows.filter({ has: this.page.getByTestId("ledger-source").getByText(source, { exact: true }) });
  }

  async filterBySource(source: string | null): Promise<void> {
    await this.sourceFilter.selectOption(source ?? "");
  }

  chartBars(source: string): Locator {
    return this.chart.locator(`[data-testid="chart-bar"][data-source="${source}"]`);
  }
}
