import net from "node:net";
import sparticuz from "@sparticuz/chromium";
import { defineConfig, devices } from "@playwright/test";

/**
 * The browser comes from npm (CONTRACT 1): @sparticuz/chromium unpacks one on first use;
 * CHROMIUM_PATH overrides it. The package's `args` target AWS Lambda (--single-process closes the
 * browser with its first context), so ours are used.
 */
const executablePath = process.env.CHROMIUM_PATH || (await sparticuz.executablePath());

/** A port nothing listens on now, from the OS. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * E2E_PORT, else a free port picked once by the runner, since a fixed port can be taken and two
 * checkouts may test at once. Workers reload this file with the runner's env, so they see the same
 * port.
 */
process.env.E2E_PORT ||= String(await freePort());
const PORT = Number(process.env.E2E_PORT);
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
          executablePath,
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
    // The widget test watches a token renewal: 5 s tokens (CONTRACT's 300 s otherwise).
    // No metrics listener: the browser tests do not scrape, and port 9464 may be another server's.
    env: { SDK_TOKEN_TTL_S: process.env.SDK_TOKEN_TTL_S || "5", METRICS_PORT: process.env.METRICS_PORT || "0" },
    url: `${BASE_URL}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
  },
});
