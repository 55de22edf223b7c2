import type { Locator, Page } from "@playwright/test";

export class SetupPage {
  readonly heading: Locator;
  readonly email: Locator;
  readonly password: Locator;
  readonly confirm: Locator;
  readonly submit: Locator;
  readonly error: Locator;
  readonly notice: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Set up Cockpit Gateway" });
    this.email = page.getByLabel("Admin email");
    this.password = page.getByLabel("Password", { exact: true });
    this.confirm = page.getByLabel("Confirm password");
    this.submit = page.getByRole("button", { name: "Create admin and sign in" });
    this.error = page.getByTestId("setup-error");
    this.notice = page.getByTestId("setup-notice");
  }

  async createAdmin(email: string, password: string, confirm = password): Promise<void> {
    await this.email.fill(email);
    await this.password.fill(password);
    await this.confirm.fill(confirm);
    await this.submit.click();
  }
}
