import { expect, type Locator, type Page } from "@playwright/test";

export class ProfilesPage {
  readonly heading: Locator;
  readonly createButton: Locator;
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Profiles", level: 1 });
    this.createButton = page.getByTestId("create-profile");
    this.dialog = page.getByTestId("profile-dialog");
  }

  async goto(): Promise<void> {
    await this.page.goto("/profiles");
    await expect(this.heading).toBeVisible();
  }

  row(name: string): Locator {
    return this.page.locator(`[data-testid="profile-row"][data-profile-name="${name}"]`);
  }

  defaultSwitch(name: string): Locator {
    return this.row(name).getByRole("switch", { name: `Default: ${name}` });
  }

  async createProfile(args: { name: string; systemPrompt: string; model?: string }): Promise<void> {
    await this.createButton.click();
    await expect(this.dialog).toBeVisible();
    await this.dialog.getByLabel("Name").fill(args.name);
    if (args.model) await this.dialog.getByLabel("Model").selectOption(args.model);
    await this.dialog.getByLabel("System prompt").fill(args.systemPrompt);
    await this.dialog.getByRole("button", { name: "Create profile" }).click();
    await expect(this.dialog).toHaveCount(0);
    await expect(this.row(args.name)).toHaveCount(1);
  }

  /** Opens a profile's editor, ticks exactly `tools` among the offered ones and saves. */
  async bindTools(profileName: string, tools: string[]): Promise<void> {
    await this.row(profileName).getByTestId("edit-profile").click();
    await expect(this.dialog).toBeVisible();
    for (const box of await this.dialog.getByTestId("profile-tool").all()) {
      const name = await box.getAttribute("value");
      await box.setChecked(tools.includes(name ?? ""));
    }
    await this.dialog.getByRole("button", { name: "Save profile" }).click();
    await expect(this.dialog).toHaveCount(0);
  }

  /** The tool names the profile editor offers, and which are ticked. */
  async offeredTools(profileName: string): Promise<{ name: string; checked: boolean }[]> {
    await this.row(profileName).getByTestId("edit-profile").click();
    await expect(this.dialog).toBeVisible();
    const out: { name: string; checked: boolean }[] = [];
    for (const box of await this.dialog.getByTestId("profile-tool").all())
      out.push({ name: (await box.getAttribute("value")) ?? "", checked: await box.isChecked() });
    await this.dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(this.dialog).toHaveCount(0);
    return out;
  }
}
