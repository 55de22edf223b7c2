/**
 * Retakes the README's screenshot, docs/images/panel.png: the panel's playground after one answer
 * from the offline model, in the Chromium the end-to-end tests use. Not part of `npm test`.
 *
 *   npx tsx scripts/build-widget.ts && npx next build   # once: it serves the production build
 *   DATABASE_URL=postgres://… npx tsx scripts/screenshot-panel.ts
 *
 * Without DATABASE_URL it uses the embedded database, as `npm start` does. It makes its own
 * company and panel user through the operator CLI, so it can run against a database in use.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import sparticuz from "@sparticuz/chromium";
import { chromium } from "playwright-core";
import { admin } from "../e2e/support/admin-cli";
import { freePort } from "../test/support/next-server";

const ROOT = path.resolve(import.meta.dirname, "..");
const OUT = path.join(ROOT, "docs/images/panel.png");
const VIEWPORT = { width: 1280, height: 760 };

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the server did not answer ${url}/api/health within ${timeoutMs} ms`);
}

async function main(): Promise<void> {
  process.env.AUTH_SECRET ||= randomBytes(32).toString("hex");
  process.env.AUTH_TRUST_HOST ||= "1";
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ["scripts/server/main.mjs", "-p", String(port)], {
    cwd: ROOT,
    env: process.env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    await waitForHealth(baseUrl, 120_000);
    const company = await admin<{ company_id: string }>("company", "create", "--name", "Acme");
    const email = `admin-${randomBytes(3).toString("hex")}@acme.test`;
    const password = randomBytes(12).toString("base64url");
    await admin("credits", "grant", "--company", company.company_id, "--amount", "10000", "--note", "screenshot");
    await admin("user", "create", "--company", company.company_id, "--email", email, `--password=${password}`);

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH || (await sparticuz.executablePath()),
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    try {
      const page = await browser.newPage({ viewport: VIEWPORT, baseURL: baseUrl });
      await page.goto("/login");
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(/\/sdk-keys$/);

      await page.goto("/playground");
      await page.getByRole("textbox", { name: "Message" }).fill("Hello! What can this gateway do?");
      await page.getByRole("button", { name: "Send" }).click();
      const answer = page.locator('[data-testid="chat-message"][data-role="assistant"]').last();
      await answer.and(page.locator('[data-state="done"]')).waitFor();
      await page.screenshot({ path: OUT });
      process.stdout.write(`wrote ${path.relative(ROOT, OUT)}\n`);
    } finally {
      await browser.close();
    }
  } finally {
    server.kill("SIGTERM");
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
