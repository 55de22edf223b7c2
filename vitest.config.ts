import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "@": path.resolve(import.meta.dirname),
  // `server-only` throws outside React Server Components; tests are trusted server code.
  "server-only": path.resolve(import.meta.dirname, "test/support/empty-module.ts"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["{lib,db,app,components,scripts,widget}/**/*.test.ts", "bench/lib/*.test.ts"],
          exclude: ["**/*.db.test.ts", "**/*.http.test.ts", "node_modules/**"],
          environment: "node",
        },
      },
      {
        resolve: { alias },
        test: {
          name: "db",
          // test/sandbox: real Deno processes (lib/sandbox), run with the integration tests.
          include: ["{lib,db,app,test}/**/*.db.test.ts", "test/sandbox/**/*.test.ts"],
          globalSetup: ["test/support/global-setup.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
        },
      },
      {
        resolve: { alias },
        test: {
          name: "http",
          include: ["test/**/*.http.test.ts"],
          // Inherited by the servers and workers the tests spawn: side by side they would all want
          // port 9464. A test of the metrics passes its own.
          env: { METRICS_PORT: "0" },
          globalSetup: ["test/support/global-setup.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 180_000,
          pool: "forks",
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          // Real agent clients from ./clients (`npm run test:clients`), not part of `npm test`.
          name: "clients",
          include: ["test/clients/**/*.clients.test.ts"],
          globalSetup: ["test/support/global-setup.ts"],
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 180_000,
          pool: "forks",
          fileParallelism: false,
        },
      },
    ],
  },
});
