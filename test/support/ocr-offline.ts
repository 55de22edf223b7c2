import { spawnSync } from "node:child_process";
import path from "node:path";

/**
 * Runs test/support/ocr-offline-child.mts (OCR of a drawn PNG) in a child process with every network
 * door shut by test/support/no-network.mjs, which Node also preloads into worker threads, and
 * proxies pointing nowhere.
 */
export function runOcrOffline(): { stdout: string; stderr: string; status: number | null } {
  const support = path.resolve(import.meta.dirname);
  const child = spawnSync(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", path.join(support, "ocr-offline-child.mts")],
    {
      encoding: "utf8",
      env: {
        ...process.env,
        NODE_OPTIONS: `--import ${path.join(support, "no-network.mjs")}`,
        HTTPS_PROXY: "http://127.0.0.1:9",
        HTTP_PROXY: "http://127.0.0.1:9",
      },
      timeout: 60_000,
    },
  );
  return { stdout: child.stdout, stderr: child.stderr, status: child.status };
}
