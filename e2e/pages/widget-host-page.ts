import { expect, type Locator, type Page } from "@playwright/test";

/** A customer's page with one `<cockpit-widget>`; locators pierce its (open) shadow root. */
export class WidgetHostPage {
  readonly widget: Locator;
  readonly title: Locator;
  readonly errorState: Locator;
  readonly loading: Locator;

  constructor(readonly page: Page) {
    this.widget = page.locator("cockpit-widget");
    this.title = this.widget.getByRole("heading", { level: 2 });
    this.errorState = this.widget.locator('[part~="error"]');
    this.loading = this.widget.locator('[part~="loading"]');
  }

  async goto(url: string, title?: string): Promise<void> {
    await this.page.goto(url);
    if (title) await expect(this.title).toHaveText(title);
  }

  column(title: string): Locator {
    return this.widget.getByRole("region", { name: title, exact: true });
  }

  card(title: string): Locator {
    return this.widget.locator('[part~="card"]').filter({ hasText: title });
  }

  async moveCard(title: string, toColumn: string): Promise<void> {
    await this.widget.getByRole("combobox", { name: `Move ${title}`, exact: true }).selectOption({ label: toColumn });
  }

  form(action: string): Locator {
    return this.widget.locator(`form[data-action="${action}"]`);
  }

  fieldError(form: Locator, field: string): Locator {
    return form.locator(`[data-error-for="${field}"]`);
  }

  async events(type?: string): Promise<{ type: string; detail: Record<string, unknown> }[]> {
    const all = await this.page.evaluate(
      () => (window as unknown as { __events: { type: string; detail: Record<string, unknown> }[] }).__events,
    );
    return type ? all.filter((e) => e.type === type) : all;
  }

  /** Computed styles of elements inside the widget's shadow root, by CSS selector (first match each). */
  async shadowStyles(selectors: string[], props: string[]): Promise<Record<string, Record<string, string>>> {
    return this.widget.evaluate(
      (el, [sels, ps]) => {
        const out: Record<string, Record<string, string>> = {};
        for (const sel of sels) {
          const node = el.shadowRoot!.querySelector(sel);
          if (!node) throw new Error(`no ${sel} in the widget`);
          const cs = getComputedStyle(node);
          out[sel] = Object.fromEntries(ps.map((p) => [p, cs.getPropertyValue(p)]));
        }
        return out;
      },
      [selectors, props] as const,
    );
  }
}
