import { expect, type Locator, type Page } from "@playwright/test";

export class LoginPage {
  readonly heading: Locator;
  readonly email: Locator;
  readonly password: Locator;
  readonly submit: Locator;
  readonly error: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Sign in to Cockpit Gateway" });
    this.email = page.getByLabel("Email");
    this.password = page.getByLabel("Password");
    this.submit = page.getByRole("button", { name: "Sign in" });
    this.error = page.getByTestId("login-error");
  }

  async goto(): Promise<void> {
    await this.page.goto("/login");
    await expect(this.heading).toBeVisible();
  }

  async signIn(email: string, password: string): Promise<void> {
    await this.email.fill(email);
    await this.password.fill(password);
    await this.submit.click();
  }

  /** Signs in and waits for the panel's landing page. */
  async signInAs(user: { email: string; password: string }): Promise<void> {
    await this.goto();
    await this.signIn(user.email, user.password);
    await expect(this.page).toHaveURL(/\/sdk-keys$/);
  }
}
