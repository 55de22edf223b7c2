// @ts-check
/**
 * Builds the jobs thread into one CommonJS file with esbuild (our sources bundled, packages left to
 * node_modules), named by content hash and renamed into place so concurrent servers never read a
 * half-written file. esbuild's service is stopped afterwards, so the server keeps no child.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const ENTRY = "lib/worker/jobs-thread-main.ts";
const OUT_DIR = ".jobs-thread";

/**
 * @param {string} dir the app's root (has package.json, tsconfig.json, lib/)
 * @returns {Promise<string>} the absolute path of the built file
 */
export async function buildJobsThread(dir) {
  const esbuild = await import("esbuild");
  /** @type {import("esbuild").BuildResult<{ write: false }>} */
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: dir,
      entryPoints: [path.join(dir, ENTRY)],
      bundle: true,
      write: false,
      platform: "node",
      format: "cjs",
      target: "node20",
      packages: "external",
      // Bundled (a relative path), not left to Node, which would resolve it without the react-server condition.
      alias: { "server-only": "./node_modules/server-only/empty.js" },
      // Modules that resolve files next to themselves (createRequire(import.meta.url)) do so from the
      // built file, which sits in the app's root like them: node_modules is found the same way.
      define: { "import.meta.url": "__cockpitModuleUrl" },
      banner: { js: 'const __cockpitModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
      logLevel: "silent",
    });
  } finally {
    await esbuild.stop();
  }
  const code = /** @type {import("esbuild").OutputFile} */ (result.outputFiles[0]).contents;
  const hash = createHash("sha256").update(code).digest("hex").slice(0, 16);
  const outDir = path.join(dir, OUT_DIR);
  const file = path.join(outDir, `jobs-thread.${hash}.cjs`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(outDir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, code);
    fs.renameSync(tmp, file);
    // Earlier builds: a server still running one keeps its open file; a new start takes the new one.
    for (const name of fs.readdirSync(outDir)) {
      if (name !== path.basename(file) && /^jobs-thread\.[0-9a-f]{16}\.cjs$/.test(name)) {
        const old = path.join(outDir, name);
        if (Date.now() - fs.statSync(old).mtimeMs > 7 * 24 * 3600_000) fs.rmSync(old, { force: true });
      }
    }
  }
  return file;
}
