import { defineConfig, devices } from "@playwright/test";

/** Fixed, unusual port so a dev server on 3000 never answers for the app under test. */
const PORT = 3210;
const BASE_URL = `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: true,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  // `npm test` sets PLAYWRIGHT_JSON_OUTPUT_NAME and reads the json reporter's stats.
  reporter: [["list"], ["json"]],
  use: {
    baseURL: BASE_URL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
          // Root user (no sandbox), no GPU, and a closed network: nothing may phone home.
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
          ],
        },
      },
    },
  ],
  webServer: {
    // The production build made by `npm test` (or `next build`), with the inherited env
    // (DATABASE_URL, AUTH_SECRET, AUTH_TRUST_HOST); the server migrates the database itself.
    command: `node scripts/server/main.mjs -p ${PORT}`,
    url: `${BASE_URL}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
  },
});
