import { randomBytes } from "node:crypto";
import { test as base, expect } from "@playwright/test";
import { GuardrailsPage } from "./pages/guardrails-page";
import { KeysPage } from "./pages/keys-page";
import { KnowledgePage } from "./pages/knowledge-page";
import { LoginPage } from "./pages/login-page";
import { ModelsPage } from "./pages/models-page";
import { PlaygroundPage } from "./pages/playground-page";
import { ProfilesPage } from "./pages/profiles-page";
import { ThreadsPage } from "./pages/threads-page";
import { ToolsPage } from "./pages/tools-page";
import { UsagePage } from "./pages/usage-page";
import { WebhooksPage } from "./pages/webhooks-page";
import { admin } from "./support/admin-cli";

/**
 * A company with credits and a panel user, made once per worker through the operator CLI (slow to
 * boot). Tests share it, so each looks only at rows it made itself, never at the company's totals.
 */
export interface Tenant {
  companyId: string;
  companyName: string;
  email: string;
  password: string;
}

const TENANT_CREDITS_OT = 100;

/** A new company with a panel user (and credits, when `creditsOt` > 0), through the operator CLI. */
export async function createTenant({ creditsOt }: { creditsOt: number }): Promise<Tenant> {
  const tag = randomBytes(4).toString("hex");
  const company = await admin<{ company_id: string; company_name: string }>(
    "company",
    "create",
    "--name",
    `E2E company ${tag}`,
  );
  const email = `e2e-${tag}@example.com`;
  const password = `pw-${randomBytes(9).toString("base64url")}`;
  await Promise.all([
    creditsOt > 0
      ? admin(
          "credits",
          "grant",
          "--company",
          company.company_id,
          "--amount",
          String(creditsOt),
          "--note",
          "e2e credits",
        )
      : null,
    admin("user", "create", "--company", company.company_id, "--email", email, "--password", password),
  ]);
  return { companyId: company.company_id, companyName: company.company_name, email, password };
}

interface WorkerFixtures {
  tenant: Tenant;
}

interface Fixtures {
  /** Creates an SDK key for the tenant through the CLI; returns its id and secret. */
  cliKey: (scopes: string[]) => Promise<{ id: string; key: string }>;
  loginPage: LoginPage;
  keysPage: KeysPage;
  knowledgePage: KnowledgePage;
  modelsPage: ModelsPage;
  playgroundPage: PlaygroundPage;
  usagePage: UsagePage;
  guardrailsPage: GuardrailsPage;
  profilesPage: ProfilesPage;
  threadsPage: ThreadsPage;
  toolsPage: ToolsPage;
  webhooksPage: WebhooksPage;
}

export const test = base.extend<Fixtures, WorkerFixtures>({
  tenant: [
    async ({}, use) => {
      await use(await createTenant({ creditsOt: TENANT_CREDITS_OT }));
    },
    { scope: "worker" },
  ],
  cliKey: async ({ tenant }, use) => {
    await use((scopes) =>
      admin<{ id: string; key: string }>(
        "key",
        "create",
        "--company",
        tenant.companyId,
        "--scopes",
        scopes.join(","),
        "--name",
        "e2e CLI key",
      ),
    );
  },
  loginPage: async ({ page }, use) => use(new LoginPage(page)),
  keysPage: async ({ page }, use) => use(new KeysPage(page)),
  knowledgePage: async ({ page }, use) => use(new KnowledgePage(page)),
  modelsPage: async ({ page }, use) => use(new ModelsPage(page)),
  playgroundPage: async ({ page }, use) => use(new PlaygroundPage(page)),
  usagePage: async ({ page }, use) => use(new UsagePage(page)),
  guardrailsPage: async ({ page }, use) => use(new GuardrailsPage(page)),
  profilesPage: async ({ page }, use) => use(new ProfilesPage(page)),
  threadsPage: async ({ page }, use) => use(new ThreadsPage(page)),
  toolsPage: async ({ page }, use) => use(new ToolsPage(page)),
  webhooksPage: async ({ page }, use) => use(new WebhooksPage(page)),
});

export { expect };
