import { randomBytes } from "node:crypto";
import { test as base, expect } from "@playwright/test";
import { KeysPage } from "./pages/keys-page";
import { LoginPage } from "./pages/login-page";
import { UsagePage } from "./pages/usage-page";
import { admin } from "./support/admin-cli";

/**
 * A company with credits and a panel user, made through the operator CLI once per worker (each CLI
 * call boots the app's code: ~1.5 s of CPU). Tests share it, so each one only looks at rows it made
 * itself (unique key names, balances read before and after), never at the company's totals.
 */
export interface Tenant {
  companyId: string;
  companyName: string;
  email: string;
  password: string;
}

const TENANT_CREDITS_OT = 100;

interface WorkerFixtures {
  tenant: Tenant;
}

interface Fixtures {
  /** Creates an SDK key for the tenant through the CLI; returns its id and secret. */
  cliKey: (scopes: string[]) => Promise<{ id: string; key: string }>;
  loginPage: LoginPage;
  keysPage: KeysPage;
  usagePage: UsagePage;
}

export const test = base.extend<Fixtures, WorkerFixtures>({
  tenant: [
    async ({}, use) => {
      const tag = randomBytes(4).toString("hex");
      const company = await admin<{ company_id: string; company_name: string }>("company", "create", "--name", `E2E company ${tag}`);
      const email = `e2e-${tag}@example.com`;
      const password = `pw-${randomBytes(9).toString("base64url")}`;
      await Promise.all([
        admin("credits", "grant", "--company", company.company_id, "--amount", String(TENANT_CREDITS_OT), "--note", "e2e credits"),
        admin("user", "create", "--company", company.company_id, "--email", email, "--password", password),
      ]);
      await use({ companyId: company.company_id, companyName: company.company_name, email, password });
    },
    { scope: "worker" },
  ],
  cliKey: async ({ tenant }, use) => {
    await use((scopes) =>
      admin<{ id: string; key: string }>("key", "create", "--company", tenant.companyId, "--scopes", scopes.join(","), "--name", "e2e CLI key"),
    );
  },
  loginPage: async ({ page }, use) => use(new LoginPage(page)),
  keysPage: async ({ page }, use) => use(new KeysPage(page)),
  usagePage: async ({ page }, use) => use(new UsagePage(page)),
});

export { expect };
