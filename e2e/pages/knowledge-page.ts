import { expect, type Locator, type Page } from "@playwright/test";

export class KnowledgePage {
  readonly heading: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Knowledge", level: 1 });
  }

  async goto(): Promise<void> {
    await this.page.goto("/knowledge");
    await expect(this.heading).toBeVisible();
  }

  async createCollection(name: string): Promise<void> {
    await this.page.getByTestId("create-collection").click();
    const dialog = this.page.getByTestId("create-collection-dialog");
    await dialog.getByLabel("Name").fill(name);
    await dialog.getByTestId("save-collection").click();
    await expect(dialog).toBeHidden();
    await expect(this.page.getByRole("heading", { name, level: 2 })).toBeVisible();
  }

  /** Drops files on the drop zone as a drag-and-drop from the desktop would (a DataTransfer of Files). */
  async dropFiles(files: { name: string; text: string }[], folder?: string): Promise<void> {
    if (folder) await this.page.getByTestId("folder-path").fill(folder);
    const dataTransfer = await this.page.evaluateHandle((list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([f.text], f.name, { type: "text/plain" }));
      return dt;
    }, files);
    await this.page.getByTestId("drop-zone").dispatchEvent("drop", { dataTransfer });
  }

  document(filename: string): Locator {
    return this.page.locator(`[data-testid="document-row"][data-filename="${filename}"]`);
  }

  async search(query: string): Promise<Locator> {
    await this.page.getByTestId("search-query").fill(query);
    await this.page.getByTestId("search-submit").click();
    return this.page.getByTestId("search-results");
  }
}
